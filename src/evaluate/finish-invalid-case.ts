import type { MetricData } from "../results/metric-data.ts";
import { buildTestResult } from "./build-test-result.ts";
import type { CheckedCase } from "./check-test-cases.ts";
import { erroredMetricData } from "./plan-component-jobs.ts";
import type { RunSession } from "./run-session.ts";

/** What an invalid case's errored results are named and judged by. */
export interface InvalidCaseMetric {
  name: string;
  threshold: number | null;
  strictMode: boolean;
  lowerIsBetter: boolean;
}

/**
 * Finishes an invalid case without a judge call: every metric errored with the case's error
 * (which names it by index and name), in every trial, recorded and reported like any case.
 */
export function finishInvalidCase(options: {
  entry: Extract<CheckedCase<unknown>, { testCase: null }>;
  index: number;
  metrics: ReadonlyArray<InvalidCaseMetric>;
  repeat: number;
  session: RunSession;
  /** Ends each message, e.g. `"Not scored."`. */
  note: string;
}): Promise<void> {
  const { entry, index, session } = options;
  const trials: Array<{ trial: number; metricsData: MetricData[] }> = [];
  for (let trial = 0; trial < options.repeat; trial++) {
    const outcomes = options.metrics.map((metric) => ({
      data: erroredMetricData({
        name: metric.name,
        threshold: metric.threshold,
        strictMode: metric.strictMode,
        lowerIsBetter: metric.lowerIsBetter,
        message: `${entry.error.message} ${options.note}`,
      }),
      error: entry.error,
    }));
    const { metricsData, stopped } = session.keepOutcomes({ index, trial, outcomes });
    if (stopped) return Promise.resolve();
    trials.push({ trial, metricsData });
  }
  return session.finishCase(
    buildTestResult({ testCase: entry.shown, index, trials, repeat: options.repeat }),
  );
}
