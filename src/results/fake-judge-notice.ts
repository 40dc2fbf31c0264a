import { metricsOfCase } from "./case-metrics.ts";
import type { TestResult } from "./evaluation-result.ts";
import type { MetricData } from "./metric-data.ts";
import type { SpanRecord } from "./trace-record.ts";

/** The name of verdict's built-in fake judge (`VERDICT_MODEL=fake`), as results record it. */
export const FAKE_JUDGE_NAME = "fake";

/** What every report says when a score in it came from the fake judge. */
export const FAKE_JUDGE_NOTICE =
  "Scores come from verdict's fake judge (VERDICT_MODEL=fake): they are NOT real. " +
  "To score for real, set a judge model and its key (e.g. OPENAI_API_KEY in .env) and run again without the fake judge.";

/**
 * Whether any metric result of these test cases (every trial, and the metrics of traced
 * spans) was scored by the fake judge: what makes a report print {@link FAKE_JUDGE_NOTICE}.
 */
export function usesFakeJudge(testResults: ReadonlyArray<TestResult>): boolean {
  return testResults.some(
    (result) =>
      metricsOfCase(result).some(isFake) ||
      (result.trace !== undefined &&
        (result.trace.metricsData.some(isFake) || spansUseFakeJudge(result.trace.spans))),
  );
}

function isFake(metric: MetricData): boolean {
  return metric.evaluationModel === FAKE_JUDGE_NAME;
}

function spansUseFakeJudge(spans: ReadonlyArray<SpanRecord>): boolean {
  return spans.some((span) => span.metricsData.some(isFake) || spansUseFakeJudge(span.children));
}
