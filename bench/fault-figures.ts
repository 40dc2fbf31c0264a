// What every scenario in bench/faults/ returns, and the one way its figures are printed (by
// the scenario run alone, and by bench/fault-bench.ts for all of them).
import { fileURLToPath } from "node:url";

/** A scenario's figures: each measured against its goal. */
export type FaultFigures = {
  title: string;
  rows: Array<{ figure: string; goal: string; measured: string; pass: boolean }>;
};

/** The figures as a markdown table under a heading of `level`. */
export function renderFaultFigures(figures: FaultFigures, level = "##"): string {
  const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
  return [
    `${level} ${figures.title}`,
    "",
    "| figure | goal | measured | |",
    "| --- | --- | --- | --- |",
    ...figures.rows.map(
      (row) =>
        `| ${cell(row.figure)} | ${cell(row.goal)} | ${cell(row.measured)} | ${row.pass ? "✓" : "✗"} |`,
    ),
  ].join("\n");
}

/** Whether the module at `moduleUrl` is the script node was started with. */
export function isMainModule(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}

/** Prints a scenario run alone, and fails the process when a goal is missed. */
export function reportAlone(figures: FaultFigures): void {
  process.stdout.write(`${renderFaultFigures(figures)}\n`);
  if (figures.rows.some((row) => !row.pass)) process.exitCode = 1;
}

/** A scenario's numeric flag: `undefined` when not given; a number of 0 or more, or it throws. */
export function numberFlag(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`--${name} must be a number of 0 or more; got "${text}".`);
  }
  return value;
}

/** The fields of `value` that are defined: flags given, to spread over a scenario's defaults. */
export function definedOnly<T extends object>(
  value: T,
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<{ [K in keyof T]: Exclude<T[K], undefined> }>;
}
