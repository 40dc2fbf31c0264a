import type { TestResult } from "../../results/evaluation-result.ts";
import type { MetricData } from "../../results/metric-data.ts";

/** How one metric result is shown: every status has a text label, never only a colour. */
export type MetricStatus = "pass" | "fail" | "error" | "score-only";

/** Text labels of {@link MetricStatus}, with a symbol for skimming. */
export const STATUS_LABELS: Record<MetricStatus, string> = {
  pass: "✓ PASS",
  fail: "✗ FAIL",
  error: "! ERROR",
  "score-only": "• SCORE ONLY",
};

/** The status of one metric result: an error wins over `success`. */
export function metricStatus(options: { metric: MetricData }): MetricStatus {
  const { metric } = options;
  if (metric.error !== null) return "error";
  if (metric.success === true) return "pass";
  if (metric.success === false) return "fail";
  return "score-only";
}

/** Every metric result of a test case: all trials with `repeat` > 1, else the only one. */
export function allMetricResults(options: { testResult: TestResult }): MetricData[] {
  const { testResult } = options;
  return testResult.trials.length > 0
    ? testResult.trials.flatMap((trial) => trial.metricsData)
    : testResult.metricsData;
}

/** `1,234`, the same in every locale. */
export function formatCount(options: { value: number }): string {
  return options.value.toLocaleString("en-US");
}

/** `"1 judge call"`, `"3 judge calls"`. */
export function formatPlural(options: { value: number; noun: string }): string {
  return `${formatCount({ value: options.value })} ${options.noun}${options.value === 1 ? "" : "s"}`;
}

/** A score or threshold with two decimals; `"–"` when there is none. */
export function formatScore(options: { value: number | null }): string {
  return options.value === null ? "–" : options.value.toFixed(2);
}
