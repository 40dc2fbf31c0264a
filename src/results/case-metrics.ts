import type { TestResult } from "./evaluation-result.ts";
import type { MetricData } from "./metric-data.ts";

/**
 * How one metric result ended. An error wins over `success`: an errored metric is never
 * "passed" or "failed", and a score-only metric (no threshold) that errored is "errored".
 */
export type MetricStatus = "passed" | "failed" | "errored" | "score-only";

/** The status of one metric result (see {@link MetricStatus}). */
export function metricStatus(metric: MetricData): MetricStatus {
  if (metric.error !== null) return "errored";
  if (metric.success === true) return "passed";
  if (metric.success === false) return "failed";
  return "score-only";
}

/** How many of `metricsData` ended in each {@link MetricStatus}. */
export function countMetricStatuses(
  metricsData: readonly MetricData[],
): Record<MetricStatus, number> {
  const counts: Record<MetricStatus, number> = {
    passed: 0,
    failed: 0,
    errored: 0,
    "score-only": 0,
  };
  for (const metric of metricsData) counts[metricStatus(metric)] += 1;
  return counts;
}

/** Every metric result of a test case: all trials with `repeat` > 1, else the only one. */
export function metricsOfCase(result: Pick<TestResult, "trials" | "metricsData">): MetricData[] {
  return result.trials.length > 0
    ? result.trials.flatMap((trial) => trial.metricsData)
    : result.metricsData;
}

/**
 * Whether a set of metric results passes: any failure or error fails (a score-only metric
 * that errored too); only score-only results → `null`.
 */
export function decideSuccess(metricsData: readonly MetricData[]): boolean | null {
  const statuses = metricsData.map(metricStatus);
  if (statuses.some((status) => status === "failed" || status === "errored")) return false;
  return statuses.includes("passed") ? true : null;
}

/** How a scored test case ended: an errored metric wins, then a failed one. */
export type CaseStatus = "passed" | "failed" | "errored";

/** The status of a scored test case over all its trials. */
export function caseStatus(result: Pick<TestResult, "trials" | "metricsData">): CaseStatus {
  const statuses = metricsOfCase(result).map(metricStatus);
  if (statuses.includes("errored")) return "errored";
  return statuses.includes("failed") ? "failed" : "passed";
}

/** Whether a metric of the case scored past its threshold (an error is not that). */
export function hasThresholdFailure(result: Pick<TestResult, "trials" | "metricsData">): boolean {
  return metricsOfCase(result).some((metric) => metricStatus(metric) === "failed");
}

/**
 * How a case ended, as the dashboard and the CSV export show it: {@link caseStatus} for a
 * case with a threshold, `"scored"` when every metric was score-only, `"unscored"` when it has
 * no metric result at all.
 */
export type CaseOutcome = CaseStatus | "scored" | "unscored";

/** The {@link CaseOutcome} of a case over all its trials. */
export function caseOutcome(result: Pick<TestResult, "trials" | "metricsData">): CaseOutcome {
  const statuses = metricsOfCase(result).map(metricStatus);
  if (statuses.length === 0) return "unscored";
  if (statuses.includes("errored")) return "errored";
  if (statuses.includes("failed")) return "failed";
  return statuses.includes("passed") ? "passed" : "scored";
}
