import { caseStatus } from "../results/case-metrics.ts";
import type { CaseCostEstimate } from "../results/cost-estimate.ts";
import type { RunStatus, TestResult } from "../results/evaluation-result.ts";
import type { JudgeText } from "../results/judge-text.ts";

/**
 * How one asserted case ended:
 * - `"passed"`: every metric with a threshold passed;
 * - `"failed"`: a metric scored past its threshold (and none errored);
 * - `"errored"`: a metric errored (a judge error, missing fields…): the case is partly unscored;
 * - `"unscored"`: no result at all (exhausted quota, cancellation, or another verdict error);
 * - `"config-error"`: verdict is not configured to run (no judge key, unknown model…).
 */
export type VerdictCaseOutcome = "passed" | "failed" | "errored" | "unscored" | "config-error";

/** An error as plain JSON (task meta crosses from the Vitest worker to the main process). */
export interface VerdictErrorInfo {
  /** The error class, e.g. `"ConfigError"`, `"JudgeCallError"`. */
  name: string;
  /** A verdict error's stable `code`, else `null`. */
  code: string | null;
  message: string;
}

/**
 * One case asserted with `assertTest` or `toPass`, as kept in the test's `task.meta.verdict`
 * (one entry per assertion, in order) for reporters such as `VerdictReporter`.
 */
export interface VerdictCaseRecord {
  /** The test file, relative to the Vitest root. */
  file: string;
  /** The test's full name: its suites and its own name, joined by `" > "`. */
  testName: string;
  /** Position of this assertion among the test's assertions, from 0. */
  caseIndex: number;
  /** Vitest's retry attempt that produced it (records of an earlier attempt are dropped). */
  retry: number;
  /** Vitest's repeat round that produced it (`repeats` option). */
  repeat: number;
  /** Names of the metrics asserted. */
  metricNames: string[];
  outcome: VerdictCaseOutcome;
  /** The case's result (its `index` is 0: the reporter assigns the run's); `null` when unscored. */
  result: TestResult | null;
  /** What left the case unscored, or a config error; `null` otherwise. */
  error: VerdictErrorInfo | null;
  /** How the case's evaluation ended (`"quota-exhausted"`, `"interrupted"`, …). */
  runStatus: RunStatus;
  /**
   * The texts of the judge prompts and answers the result's calls name by hash, each once,
   * for the store; absent when none were kept (`VERDICT_JUDGE_TEXT=hash`).
   */
  judgeTexts?: JudgeText[];
  /** In a dry run (`VERDICT_DRY_RUN`): what the case would spend; no judge was asked. */
  estimate?: CaseCostEstimate;
}

declare module "vitest" {
  interface TaskMeta {
    /** Cases asserted by verdict in this test (`assertTest`, `toPass`). */
    verdict?: VerdictCaseRecord[];
  }
}

/** Decides a scored case's outcome from its metrics. */
export function outcomeOfResult(result: TestResult): VerdictCaseOutcome {
  return caseStatus(result);
}
