import type { JudgeTextMode } from "../../results/judge-text.ts";
import type { OutputRequest } from "../output-targets.ts";

/** Options of `runTestRun`: the flags of `verdict test run`. */
export interface TestRunCommandOptions {
  /** Test files or folders; folders are searched for `*.eval.ts`. Empty: the whole project. */
  paths: string[];
  /** Reuse judge answers from earlier runs (the default, `-c/--use-cache`; `--no-cache` turns it off). */
  cache: boolean;
  ignoreErrors: boolean;
  skipOnMissingParams: boolean;
  verbose: boolean;
  /** Judge requests in flight per judge model, per Vitest worker. */
  maxConcurrent?: number;
  /** Trials of each case. */
  repeat?: number;
  /** Stop at the first failing test (Vitest's `bail: 1`). */
  exitOnFirstFailure: boolean;
  /**
   * Run the tests of each file at the same time (Vitest's `sequence.concurrent`, up to
   * `maxConcurrent` tests at once); `false` (`--no-concurrent`) runs them one after another.
   * @default true
   */
  concurrent?: boolean;
  /** Which cases the end report lists; `"none"` prints no report and no progress. */
  display: "all" | "failing" | "passing" | "none";
  identifier?: string;
  /**
   * `--resume`: continue the latest stored run of `identifier` rather than start a new one; the
   * tests run again and the judge cache answers what the earlier run paid for. The store must
   * open: else exit 2 before any test runs.
   */
  resume?: boolean;
  /** The `--output` flags: each report's format, and its file when given as `FORMAT=PATH`. */
  outputs?: readonly OutputRequest[];
  /**
   * The file of a single `--output`.
   * @default `verdict-report.<json|xml|html|md>` in `cwd`
   */
  outputFile?: string;
  /**
   * Under GitHub Actions (`GITHUB_ACTIONS=true`): append the Markdown report to the job summary
   * and annotate failing tests at their file and line; `false` with `--no-github`.
   * @default true
   */
  github?: boolean;
  /** `--shard i/n`: run the tests dealt to shard i of n (see `shardOfTest`). */
  shard?: string;
  /** `--judge`: the judge model of this run (`VERDICT_MODEL` for the workers); `"fake"` for the fake judge. */
  judge?: string;
  /**
   * `--watch`: run the suite, then run again the test files that change (and those importing a
   * changed module) on each save, until `q` (exit 0) or Ctrl-C (130). Each run is stored under
   * `identifier` (by default `watch-<date>-<time>-<hex>`, one per session), so that
   * `verdict view` follows the session; see docs/watch.md.
   * @default false
   */
  watch?: boolean;
  /** `--judge-text`: what the store keeps of the judge's prompts and answers (`VERDICT_JUDGE_TEXT` for the workers). */
  judgeText?: JudgeTextMode;
  /**
   * `--dry-run`: ask no judge; print what each metric and the run are expected to spend (judge
   * calls, tokens, cost, with their range; cached answers free). The tests still run.
   */
  dryRun?: boolean;
  /** `--max-cost`: the run's budget in USD; it stops (exit 4) before its spend could pass it. */
  maxCostUsd?: number;
  /** `--max-tokens`: the run's budget in judge tokens. */
  maxTokens?: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
}
