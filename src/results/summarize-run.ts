import { caseStatus, metricStatus, metricsOfCase } from "./case-metrics.ts";
import type {
  EvaluationSummary,
  JudgeSpending,
  MetricSummary,
  RunStatus,
  TestResult,
} from "./evaluation-result.ts";
import { usesFakeJudge } from "./fake-judge-notice.ts";
import type { MetricData } from "./metric-data.ts";
import { snapshotSpending } from "./spending.ts";

/** Per-metric aggregates over every trial of every case, in the order metrics first appear. */
export function summarizeMetrics(testResults: readonly TestResult[]): MetricSummary[] {
  const byName = new Map<string, MetricData[]>();
  for (const result of testResults) {
    for (const metric of metricsOfCase(result)) {
      const list = byName.get(metric.name) ?? [];
      list.push(metric);
      byName.set(metric.name, list);
    }
  }
  return [...byName.entries()].map(([name, list]) => {
    const scores = list.flatMap((metric) => (metric.score === null ? [] : [metric.score]));
    const count = { passed: 0, failed: 0, errored: 0, "score-only": 0 };
    for (const metric of list) count[metricStatus(metric)] += 1;
    const judged = count.passed + count.failed + count.errored;
    return {
      name,
      lowerIsBetter: list[0]?.lowerIsBetter ?? false,
      meanScore:
        scores.length === 0 ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length,
      passRate: judged === 0 ? null : count.passed / judged,
      passed: count.passed,
      failed: count.failed,
      errored: count.errored,
      scoreOnly: count["score-only"],
    };
  });
}

/** The totals of a run from its results and what it spent on the judge. */
export function summarizeRun(options: {
  status: RunStatus;
  testResults: readonly TestResult[];
  /** Cases in the run, unscored ones included. @default testResults.length */
  total?: number;
  spending: JudgeSpending;
  durationMs: number;
}): EvaluationSummary {
  const { testResults } = options;
  const total = options.total ?? testResults.length;
  const failed = testResults.filter((result) => result.success === false).length;
  const errored = testResults.filter((result) => caseStatus(result) === "errored").length;
  const judges = new Set<string>();
  for (const result of testResults) {
    for (const metric of metricsOfCase(result)) {
      if (metric.evaluationModel !== null) judges.add(metric.evaluationModel);
    }
  }
  return {
    status: options.status,
    metrics: summarizeMetrics(testResults),
    testCases: {
      total,
      passed: testResults.length - failed,
      failed,
      unscored: total - testResults.length,
      errored,
    },
    judges: [...judges].sort(),
    ...snapshotSpending(options.spending),
    durationMs: options.durationMs,
    ...(usesFakeJudge(testResults) ? { fakeJudge: true as const } : {}),
  };
}
