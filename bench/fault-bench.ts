// The fault bench of issue 9: runs every scenario in bench/faults/ (rate limits, malformed
// judge answers, secrets, the dashboard and stale runs, bad input), prints one table and
// writes bench/results/faults.md.
//   node --conditions=verdict-source bench/fault-bench.ts [--only rate-limits,secrets]
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { type FaultFigures, renderFaultFigures } from "./fault-figures.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const { values } = parseArgs({ options: { only: { type: "string" } } });
const only = values.only?.split(",").map((name) => name.trim());

const folder = join(here, "faults");
const files = (existsSync(folder) ? readdirSync(folder) : [])
  .filter((file) => file.endsWith(".ts"))
  .filter((file) => !only || only.includes(file.replace(/\.ts$/, "")))
  .sort();
const sections: string[] = [];
let failed = 0;
for (const file of files) {
  const module = (await import(pathToFileURL(join(here, "faults", file)).href)) as Record<
    string,
    unknown
  >;
  const measure = Object.entries(module).find(
    ([name, value]) => name.startsWith("measure") && typeof value === "function",
  )?.[1] as (() => Promise<FaultFigures>) | undefined;
  if (!measure) continue;
  const started = Date.now();
  const figures = await measure();
  failed += figures.rows.filter((row) => !row.pass).length;
  sections.push(
    [
      renderFaultFigures(figures),
      "",
      `(${file}, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      "",
    ].join("\n"),
  );
  process.stdout.write(`${sections.at(-1)}\n`);
}
const report = [
  "# Fault bench",
  "",
  `Measured ${new Date().toISOString()} on Node ${process.version}, ${process.platform}/${process.arch}.`,
  "",
  ...sections,
].join("\n");
if (!only) writeFileSync(join(here, "results", "faults.md"), report);
process.exitCode = failed > 0 ? 1 : 0;
