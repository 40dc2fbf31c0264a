import type { DisplayOption } from "../evaluate/default-reporters.ts";
import type { BudgetSummary } from "../results/evaluation-result.ts";
import type { RunReporter } from "../results/runner-events.ts";
import type { RunShard, Store } from "../store/run-store.ts";

/** Options of `VerdictReporter`. */
export interface VerdictReporterOptions {
  /** Where the run is stored: the `.verdict/` SQLite store by default, a Store, or `false`. */
  store?: Store | false;
  /** Names the stored run. */
  identifier?: string;
  /**
   * Continue the latest stored run of `identifier` (its id, and the results it holds) instead
   * of starting a new one. The tests run again; the judge cache answers the requests the
   * earlier run paid for. The store must then open: when it cannot, the run stops before any
   * test runs (a `StoreError` saying what is wrong and what to do).
   * @default false
   */
  resume?: boolean;
  /** Which cases the end report shows; `"none"` prints no report. @default "all" */
  display?: DisplayOption;
  /**
   * Show verdict's progress bar. Off by default next to Vitest's own reporter, whose live
   * output it would garble.
   * @default printVitestOutput && display !== "none"
   */
  showProgress?: boolean;
  /** More consumers of the runner events (JSON, JUnit, HTML reports…). */
  reporters?: RunReporter[];
  /** Where `VERDICT_HOME` and the `VERDICT_*` settings are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * The shard this run is, when it runs some tests of every file (`verdict test run --shard`,
   * see `shardOfTest`): it counts only those, and the shards of a CI build store one run.
   * @default Vitest's own `--shard` (whole files per shard), if any
   */
  shard?: RunShard;
  /** More configuration to store with the run (e.g. the command's flags). */
  config?: Record<string, unknown>;
  /**
   * The run's budget and what it spent of it, asked when the run ends, for its summary and
   * its end message (`verdict test run --max-cost/--max-tokens` gives it: it keeps the budget
   * the workers reserve against).
   */
  budget?: () => Promise<BudgetSummary | undefined>;
  /**
   * This is the run's only reporter: also print what Vitest's reporter would (failures
   * outside verdict's metrics, broken files, console output of tests). @default false
   */
  printVitestOutput?: boolean;
  /** @default process.stdout */
  stdout?: NodeJS.WritableStream;
  /** @default process.stderr */
  stderr?: NodeJS.WritableStream;
}
