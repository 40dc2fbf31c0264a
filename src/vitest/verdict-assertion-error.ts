import { formatScore, showControlCharacters, showName } from "../report/format.ts";
import { metricStatus } from "../results/case-metrics.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";

/** Options of {@link describeFailedMetrics}. */
export interface DescribeFailedMetricsOptions {
  result: TestResult;
}

/** Options of {@link VerdictAssertionError}. */
export interface VerdictAssertionErrorOptions {
  result: TestResult;
}

/** A failed threshold or an error: what fails the assertion. */
function isFailing(metric: MetricData): boolean {
  const status = metricStatus(metric);
  return status === "failed" || status === "errored";
}

function describeMetric(metric: MetricData, trial: number | null): string {
  const fields = [
    ...(trial === null ? [] : [`trial: ${trial}`]),
    `score: ${formatScore(metric.score)}`,
    `threshold: ${formatScore(metric.threshold)}`,
    `strict: ${metric.strictMode}`,
    `error: ${metric.error === null ? "none" : showControlCharacters(metric.error)}`,
    `reason: ${metric.reason === null ? "none" : showControlCharacters(metric.reason)}`,
  ];
  // Vitest prints the message to the terminal: what a judge or a name holds is shown, not obeyed.
  return `${showName(metric.name)} (${fields.join(", ")})`;
}

/**
 * The metrics that failed or errored on a case, in deepeval's words:
 * `Metrics: Toxicity (score: 0.80, threshold: 0.50, strict: false, error: none, reason: …) failed.`
 * With `repeat`, each failing trial's metrics, marked with their trial.
 * @example
 * describeFailedMetrics({ result: testResult });
 */
export function describeFailedMetrics(options: DescribeFailedMetricsOptions): string {
  const { result } = options;
  const failing =
    result.trials.length > 1
      ? result.trials.flatMap((trial) =>
          trial.metricsData.filter(isFailing).map((metric) => describeMetric(metric, trial.trial)),
        )
      : result.metricsData.filter(isFailing).map((metric) => describeMetric(metric, null));
  return `Metrics: ${failing.join(", ")} failed.`;
}

/**
 * Thrown by `assertTest` when a metric of the case failed its threshold or errored. The
 * message lists each failing metric with its score, threshold, strict mode, error and reason;
 * `result` holds the whole case.
 */
export class VerdictAssertionError extends Error {
  /** The case's result. */
  readonly result: TestResult;

  constructor(options: VerdictAssertionErrorOptions) {
    super(describeFailedMetrics({ result: options.result }));
    this.name = "VerdictAssertionError";
    this.result = options.result;
  }
}
