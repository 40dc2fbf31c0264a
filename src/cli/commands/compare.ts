import { hostname } from "node:os";
import path from "node:path";
import { resolveVerdictHome } from "../../config/project-config.ts";
import { StoreError } from "../../errors/store-error.ts";
import {
  compareRuns,
  formatRunComparison,
  type RunWithResults,
} from "../../report/compare-runs.ts";
import { openStore } from "../../store/open-store.ts";
import { type RunLivenessOptions, runLiveness } from "../../store/run-liveness.ts";
import type { Store, StoredRun } from "../../store/run-store.ts";
import { STORE_FILE_NAME } from "../../store/sqlite-run-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";

/** Options of {@link runCompare}. */
export interface CompareCommandOptions {
  /** Id or identifier (its latest run) of the run compared against. */
  baseline: string;
  /** Id or identifier (its latest run) of the run checked for regressions. */
  candidate: string;
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
 * `verdict compare A B`: per-metric differences between two stored runs, paired tests of each
 * change, and the test cases that changed verdict. Exits 1 when a metric got worse by more
 * than `maxDrop` and significantly (p < `alpha`; any such drop with `alpha: null`), 2 when a run
 * or the store cannot be found or read, else 0.
 * @example
 * process.exitCode = await runCompare({ baseline: "main", candidate: "pr-42", cwd, env });
 */
export async function runCompare(options: CompareCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const maxDrop = options.maxDrop ?? 0;
  const liveness: RunLivenessOptions = {
    now: (options.now ?? Date.now)(),
    hostname: options.hostname ?? hostname(),
    ...(options.isProcessAlive ? { isProcessAlive: options.isProcessAlive } : {}),
  };
  let opened: Store | null = null;
  try {
    const found =
      options.store === undefined
        ? await openStore({ env: options.env, cwd: options.cwd, purpose: "read" })
        : {
            store: options.store,
            where: path.join(resolveVerdictHome(options), STORE_FILE_NAME),
            missingFile: null,
          };
    if (found.store === null) {
      stderr.write(
        `No verdict store at ${found.missingFile ?? found.where}: run "verdict test run" first, or set VERDICT_HOME to the folder that holds ${STORE_FILE_NAME} (or VERDICT_STORE to a team's PostgreSQL store).\n`,
      );
      return EXIT_CODES.usage;
    }
    const { store, where: storePath } = found;
    opened = store;
    const baseline = await store.runs.getRun(options.baseline);
    const candidate = await store.runs.getRun(options.candidate);
    if (baseline === null || candidate === null) {
      const missing = [
        ...(baseline === null ? [options.baseline] : []),
        ...(candidate === null ? [options.candidate] : []),
      ];
      stderr.write(await describeMissing(store, storePath, missing, liveness));
      return EXIT_CODES.usage;
    }
    const load = async (run: StoredRun): Promise<RunWithResults> => ({
      run,
      results: (await store.runs.getTestResults(run.id)).map((stored) => stored.result),
    });
    const comparison = compareRuns({
      baseline: await load(baseline),
      candidate: await load(candidate),
      maxDrop,
      ...(options.alpha === undefined ? {} : { alpha: options.alpha }),
    });
    const shown = [showRun(baseline, liveness), showRun(candidate, liveness)] as const;
    stdout.write(
      formatRunComparison({
        baseline: shown[0].run,
        candidate: shown[1].run,
        comparison,
        maxDrop,
        notes: shown.flatMap((entry) => (entry.note === null ? [] : [entry.note])),
      }),
    );
    return comparison.regressed ? EXIT_CODES.failed : EXIT_CODES.passed;
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    stderr.write(`${error.message}\n`);
    return EXIT_CODES.usage;
  } finally {
    if (options.store === undefined) await opened?.close();
  }
}
