import type { JudgeTotals } from "../judge/judge-ledger.ts";
import type { JudgeText } from "../results/judge-text.ts";
import type { MetricData } from "../results/metric-data.ts";
import { toJsonValue } from "../results/to-json-value.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import type { MetricDetails, VerboseStep } from "./metric-context.ts";
import { formatScore } from "./shared/prompt-text.ts";

/** A metric's outcome on one test case: the plain data, and the error object when it failed. */
export interface MetricRunResult {
  data: MetricData;
  error: Error | null;
  /** What the steps extracted and judged (empty when the metric failed). */
  details?: MetricDetails | undefined;
  /**
   * The texts of the prompts and answers its judge calls name by hash (`promptHash`,
   * `answerHash`), each once; empty when `judgeText` is `"hash"`.
   */
  judgeTexts?: JudgeText[] | undefined;
}

/**
 * Records how a metric's run on one test case ended as its {@link MetricRunResult}: the score
 * or the error, the steps (as verbose-log text and as JSON), the judge calls and their totals.
 * Prints the verbose logs when `verbose`.
 */
export function toMetricRunResult(options: {
  /** What the metric is: its name, threshold, strict mode and direction. */
  metric: Pick<MetricData, "name" | "threshold" | "strictMode" | "lowerIsBetter">;
  /** Whether it passed, as the metric decides it for this outcome. */
  success: boolean | null;
  outcome: {
    score: number | null;
    reason: string | null;
    error: Error | null;
    details?: MetricDetails;
  };
  /** The judge's name; `null` when it failed before a judge was resolved. */
  evaluationModel: string | null;
  /** The judge calls' totals (`JudgeLedger.totals()`). */
  totals: JudgeTotals;
  steps: readonly VerboseStep[];
  verbose: boolean;
}): MetricRunResult {
  const { metric, outcome, totals, steps } = options;
  const data: MetricData = {
    name: metric.name,
    threshold: metric.threshold,
    success: options.success,
    score: outcome.score,
    reason: outcome.reason,
    strictMode: metric.strictMode,
    lowerIsBetter: metric.lowerIsBetter,
    evaluationModel: options.evaluationModel,
    error: outcome.error ? outcome.error.message : null,
    evaluationCost: totals.costUsd,
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    verboseLogs: formatVerboseSteps(steps),
    judgeCalls: totals.judgeCalls,
    cachedJudgeCalls: totals.cachedCalls,
    sharedJudgeCalls: totals.sharedCalls,
    saved: totals.saved,
    steps: steps.map((step) => ({
      label: step.label,
      value: toJsonValue(step.value),
      ...(step.flaggedVerdict === undefined ? {} : { flaggedVerdict: step.flaggedVerdict }),
    })),
    calls: totals.calls,
  };
  if (options.verbose) printVerbose(data);
  return {
    data,
    error: outcome.error,
    details: outcome.details ?? {},
    judgeTexts: totals.texts,
  };
}

function formatVerboseSteps(steps: readonly VerboseStep[]): string {
  return steps.map((step) => `${step.label}:\n${JSON.stringify(step.value, null, 2)}`).join("\n\n");
}

function printVerbose(data: MetricData): void {
  const stars = "*".repeat(50);
  const lines = [
    stars,
    `${data.name} Verbose Logs`,
    stars,
    "",
    data.verboseLogs,
    "",
    data.error
      ? `Error: ${data.error}`
      : `Score: ${data.score === null ? "none" : formatScore(data.score)}\nReason: ${data.reason ?? "(not requested)"}`,
    "=".repeat(70),
  ];
  console.log(redactSecretText(lines.join("\n")));
}
