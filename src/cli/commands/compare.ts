import { hostname } from "node:os";
import path from "node:path";
import { resolveVerdictHome } from "../../config/project-config.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import { renderComparisonMarkdown } from "../../report/compare-markdown.ts";
import { compareRuns } from "../../report/compare-runs.ts";
import { formatRunComparison } from "../../report/format-run-comparison.ts";
import { appendStepSummary } from "../../report/github-actions-report.ts";
import type { RunWithResults } from "../../report/run-with-results.ts";
import { writeReportFile } from "../../report/write-report-file.ts";
import { openStore } from "../../store/open-store.ts";
import { type RunLivenessOptions, runLiveness } from "../../store/run-liveness.ts";
import type { Store, StoredRun } from "../../store/run-store.ts";
import { STORE_FILE_NAME } from "../../store/sqlite-run-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import { githubActionsOf } from "../github-actions.ts";
import { type OutputRequest, resolveOutputTargets } from "../output-targets.ts";
import { isReportPath, readReportRun } from "./compare-inputs.ts";

/** Options of {@link runCompare}. */
export interface CompareCommandOptions {
  /**
   * Id or identifier (its latest run) of the run compared against, or a JSON report written
   * by `--output json` (a path ending in `.json`).
   */
  baseline: string;
  /** Id or identifier (its latest run), or a JSON report, of the run checked for regressions. */
  candidate: string;
  /** The `--output` flags: `markdown` (a pull-request comment), with its file as `markdown=PATH`. */
  outputs?: readonly OutputRequest[] | undefined;
  /** The file of a single `--output`. @default `verdict-compare.md` in `cwd` */
  outputFile?: string | undefined;
  /**
   * Under GitHub Actions (`GITHUB_ACTIONS=true`): append the Markdown comparison to the job
   * summary; `false` with `--no-github`.
   * @default true
   */
  github?: boolean | undefined;
  /**
   * How much worse a metric may get before the comparison fails, in score units: 0.05 allows
   * the mean score to move 0.05 the wrong way and the pass rate to drop 5 points.
   * @default 0
   */
  maxDrop?: number | undefined;
  /**
   * Significance level of the paired tests: a drop beyond `maxDrop` fails only when p < alpha;
   * `null` fails on any such drop (`--no-stats`). @default 0.05
   */
  alpha?: number | null | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default the SQLite store of the verdict home folder (never created by compare) */
  store?: Store | undefined;
  /** @default process.stdout */
  stdout?: CommandOutput | undefined;
  /** @default process.stderr */
  stderr?: CommandOutput | undefined;
  /** Now, in ms since the epoch: a running run with an older heartbeat is shown as interrupted. @default Date.now */
  now?: (() => number) | undefined;
  /** @default os.hostname() */
  hostname?: string | undefined;
  /** @default process.kill(pid, 0) */
  isProcessAlive?: ((pid: number) => boolean) | undefined;
}

/** A stored run as compare shows it: a `running` run whose process is gone is `interrupted`. */
function showRun(
  run: StoredRun,
  liveness: RunLivenessOptions,
): { run: StoredRun; note: string | null } {
  const found = runLiveness(run, liveness);
  return {
    run: { ...run, status: found.status },
    note: found.stale
      ? `Note: run ${run.id} was interrupted: its process is gone (${found.reason}). Resume it with ${found.resumeCommand}.`
      : null,
  };
}

async function describeMissing(
  store: Store,
  storePath: string,
  missing: string[],
  liveness: RunLivenessOptions,
): Promise<string> {
  const what = missing.map((name) => `"${name}"`).join(" and ");
  const recent = (await store.runs.listRuns({ limit: 5 })).map((run) => showRun(run, liveness).run);
  const lines = [
    `No run with the id or identifier ${what} in the verdict store ${storePath}. ` +
      (recent.length === 0
        ? 'The store has no runs yet: run "verdict test run" first.'
        : 'Run "verdict compare A B" with ids from the latest runs:'),
    ...recent.map(
      (run) =>
        `  ${run.id}${run.identifier === null ? "" : `  ${run.identifier}`}  ${run.startedAt}  ${run.status}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * `verdict compare A B`: per-metric differences between two runs — stored runs (ids or
 * identifiers) or JSON reports (paths ending in `.json`, read without any store) — paired
 * tests of each change, and the test cases that changed verdict. `--output markdown` writes the
 * comparison for a pull-request comment; under GitHub Actions it is appended to the job
 * summary. Exits 1 when a metric got worse by more than `maxDrop` and significantly (p <
 * `alpha`; any such drop with `alpha: null`), 2 when a run, a report or the store cannot be
 * found or read, else 0.
 * @example
 * process.exitCode = await runCompare({ baseline: "main.json", candidate: "pr-42", cwd, env });
 */
export async function runCompare(options: CompareCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const maxDrop = options.maxDrop ?? 0;
  const targets = resolveOutputTargets({
    outputs: options.outputs ?? [],
    outputFile: options.outputFile,
    cwd: options.cwd,
    defaultName: "verdict-compare",
  });
  if (typeof targets === "string") return usage(stderr, targets);
  const other = targets.find((target) => target.format !== "markdown");
  if (other !== undefined) {
    return usage(
      stderr,
      `verdict compare writes --output markdown (a pull-request comment), not ${other.format}: e.g. --output markdown=compare.md.`,
    );
  }
  const liveness: RunLivenessOptions = {
    now: (options.now ?? Date.now)(),
    hostname: options.hostname ?? hostname(),
    ...(options.isProcessAlive ? { isProcessAlive: options.isProcessAlive } : {}),
  };
  const fromReports = new Map<string, { entry: RunWithResults; label: string }>();
  for (const argument of [options.baseline, options.candidate]) {
    if (!isReportPath(argument)) continue;
    const read = readReportRun({ file: argument, cwd: options.cwd });
    if ("error" in read) return usage(stderr, read.error);
    fromReports.set(argument, read);
  }
  let opened: Store | null = null;
  try {
    let stored: { store: Store; where: string } | null = null;
    if (fromReports.size < 2 || options.baseline === options.candidate) {
      const found = await openCompareStore(options);
      if (found.store === null) {
        return usage(
          stderr,
          `No verdict store at ${found.missingFile ?? found.where}: run "verdict test run" first, or set VERDICT_HOME to the folder that holds ${STORE_FILE_NAME} (or VERDICT_STORE to a team's PostgreSQL store), or compare JSON reports (paths ending in .json).`,
        );
      }
      if (options.store === undefined) opened = found.store;
      stored = { store: found.store, where: found.where };
    }
    const load = async (
      argument: string,
    ): Promise<{ entry: RunWithResults; label: string } | null> => {
      const report = fromReports.get(argument);
      if (report !== undefined) return report;
      const run = await stored?.store.runs.getRun(argument);
      if (run === null || run === undefined || stored === null) return null;
      const results = (await stored.store.runs.getTestResults(run.id)).map((entry) => entry.result);
      return { entry: { run, results }, label: run.identifier ?? run.id };
    };
    const baseline = await load(options.baseline);
    const candidate = await load(options.candidate);
    if (baseline === null || candidate === null) {
      const missing = [
        ...(baseline === null ? [options.baseline] : []),
        ...(candidate === null ? [options.candidate] : []),
      ];
      const where = stored as { store: Store; where: string };
      stderr.write(await describeMissing(where.store, where.where, missing, liveness));
      return EXIT_CODES.usage;
    }
    const comparison = compareRuns({
      baseline: baseline.entry,
      candidate: candidate.entry,
      maxDrop,
      ...(options.alpha === undefined ? {} : { alpha: options.alpha }),
    });
    const shown = [
      showRun(baseline.entry.run, liveness),
      showRun(candidate.entry.run, liveness),
    ] as const;
    const notes = shown.flatMap((entry) => (entry.note === null ? [] : [entry.note]));
    const fromFiles = [
      ["baseline", options.baseline],
      ["candidate", options.candidate],
    ].flatMap(([side, argument]) =>
      fromReports.has(argument as string) ? [`The ${side} is the JSON report ${argument}.`] : [],
    );
    stdout.write(
      formatRunComparison({
        baseline: shown[0].run,
        candidate: shown[1].run,
        comparison,
        maxDrop,
        notes: [...fromFiles, ...notes],
      }),
    );
    const markdown = () =>
      renderComparisonMarkdown({
        baseline: { ...baseline.entry, run: shown[0].run },
        candidate: { ...candidate.entry, run: shown[1].run },
        comparison,
        maxDrop,
        labels: { baseline: baseline.label, candidate: candidate.label },
        notes,
      });
    for (const target of targets) {
      writeReportFile({ file: target.file, text: markdown(), kind: "Markdown comparison" });
      stdout.write(`Comparison written to ${target.file}\n`);
    }
    const github = githubActionsOf({ env: options.env, enabled: options.github !== false });
    if (github?.summaryFile != null) {
      appendStepSummary({ file: github.summaryFile, markdown: markdown(), stderr });
    }
    return comparison.regressed ? EXIT_CODES.failed : EXIT_CODES.passed;
  } catch (error) {
    if (!(error instanceof StoreError) && !(error instanceof ConfigError)) throw error;
    stderr.write(`${error.message}\n`);
    return EXIT_CODES.usage;
  } finally {
    await opened?.close();
  }
}

function usage(stderr: CommandOutput, message: string): number {
  stderr.write(`${message}\n`);
  return EXIT_CODES.usage;
}

async function openCompareStore(options: CompareCommandOptions) {
  if (options.store !== undefined) {
    return {
      store: options.store,
      where: path.join(resolveVerdictHome(options), STORE_FILE_NAME),
      missingFile: null,
    };
  }
  return openStore({ env: options.env, cwd: options.cwd, purpose: "read" });
}
