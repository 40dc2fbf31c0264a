import type { MetricData } from "../metrics/metric-data.ts";
import type {
  EvaluationSummary,
  MetricSummary,
  RunStatus,
  TestResult,
} from "./evaluation-result.ts";
import type { SchedulerStats } from "./scheduler.ts";

/** Whether a set of metric results passes: any failure fails; only score-only results → `null`. */
export function decideSuccess(metricsData: readonly MetricData[]): boolean | null {
  if (metricsData.some((metric) => metric.success === false)) return false;
  return metricsData.some((metric) => metric.success === true) ? true : null;
}

function summarizeMetrics(testResults: readonly TestResult[]): MetricSummary[] {
  const byName = new Map<string, MetricData[]>();
  for (const result of testResults) {
    const all =
      result.trials.length > 0
        ? result.trials.flatMap((trial) => trial.metricsData)
        : result.metricsData;
    for (const metric of all) {
      const list = byName.get(metric.name) ?? [];
      list.push(metric);
      byName.set(metric.name, list);
    }
  }
  return [...byName.entries()].map(([name, list]) => {
    const scores = list.flatMap((metric) => (metric.score === null ? [] : [metric.score]));
    const errored = list.filter((metric) => metric.error !== null).length;
    const passed = list.filter((metric) => metric.success === true).length;
    const failed = list.filter(
      (metric) => metric.success === false && metric.error === null,
    ).length;
    return {
      name,
      meanScore:
        scores.length === 0 ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length,
      passRate: passed + failed + errored === 0 ? null : passed / (passed + failed + errored),
      passed,
      failed,
      errored,
      scoreOnly: list.filter((metric) => metric.success === null && metric.error === null).length,
    };
  });
}

/** The totals of a run from its results and the scheduler's accounting. */
export function summarizeRun(options: {
  status: RunStatus;
  testResults: readonly TestResult[];
  total: number;
  stats: SchedulerStats;
  durationMs: number;
}): EvaluationSummary {
  const { testResults, stats } = options;
  return {
    status: options.status,
    metrics: summarizeMetrics(testResults),
    testCases: {
      total: options.total,
      passed: testResults.filter((result) => result.success !== false).length,
      failed: testResults.filter((result) => result.success === false).length,
      unscored: options.total - testResults.length,
    },
    judgeCalls: stats.judgeCalls,
    cacheHits: stats.cacheHits,
    sharedCalls: stats.sharedCalls,
    inputTokens: stats.inputTokens,
    outputTokens: stats.outputTokens,
    costUsd: stats.costUsd,
    saved: { ...stats.saved },
    durationMs: options.durationMs,
  };
}
