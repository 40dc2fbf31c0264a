import type { EvaluationResult } from "./evaluation-result.ts";

/**
 * How a test run ended, from the most to the least serious:
 * - `"usage"`: verdict is not configured to run (no judge key, unknown model, bad option);
 * - `"budget"`: the run's budget stopped it before it finished (resume with a larger one);
 * - `"unscored"`: judge errors left cases (or some of their metrics) unscored, or the run was
 *   interrupted or ran out of quota;
 * - `"failed"`: a case failed a threshold, or a test failed for another reason;
 * - `"passed"`: everything passed.
 */
export type TestRunOutcome = "passed" | "failed" | "unscored" | "usage" | "budget";

/** Options of {@link decideTestRunOutcome}. */
export interface DecideTestRunOutcomeOptions {
  result: EvaluationResult;
  /** Configuration errors met by the tests. @default 0 */
  configErrors?: number;
  /** Tests that failed outside verdict's metrics (a plain `expect`, a broken file). @default 0 */
  otherFailures?: number;
}

/**
 * Decides a test run's outcome from its gathered result: what `verdict test run` and
 * `verdict merge` both turn into an exit code, so that merged shards end like one run.
 * @example
 * const outcome = decideTestRunOutcome({ result });
 */
export function decideTestRunOutcome(options: DecideTestRunOutcomeOptions): TestRunOutcome {
  const { summary } = options.result;
  if ((options.configErrors ?? 0) > 0) return "usage";
  if (summary.status === "budget-exhausted") return "budget";
  if (
    summary.testCases.unscored > 0 ||
    summary.metrics.some((metric) => metric.errored > 0) ||
    summary.status === "quota-exhausted" ||
    summary.status === "interrupted" ||
    summary.status === "failed"
  ) {
    return "unscored";
  }
  if (summary.testCases.failed > 0 || (options.otherFailures ?? 0) > 0) return "failed";
  return "passed";
}
