import { caseStatus, metricStatus, metricsOfCase } from "./case-metrics.ts";
import type {
  EvaluationSummary,
  FlakyCase,
  JudgeSpending,
  MetricSummary,
  RunStatus,
  TestResult,
} from "./evaluation-result.ts";
import { usesFakeJudge } from "./fake-judge-notice.ts";
import type { MetricData } from "./metric-data.ts";
import { snapshotSpending } from "./spending.ts";
import { BOOTSTRAP_RESAMPLES, bootstrapMeanInterval, wilsonInterval } from "./statistics.ts";

/**
 * Bootstrap draws per metric at most: a run of 10,000 cases gets 200 resamples instead of 2,000
 * (at that size the interval is as narrow as the data allows, and the summary stays ~10 ms).
 */
const MAX_BOOTSTRAP_DRAWS = 2_000_000;
const MIN_BOOTSTRAP_RESAMPLES = 200;

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
    const resamples = Math.max(
      MIN_BOOTSTRAP_RESAMPLES,
      Math.min(BOOTSTRAP_RESAMPLES, Math.floor(MAX_BOOTSTRAP_DRAWS / Math.max(1, scores.length))),
    );
    return {
      name,
      lowerIsBetter: list[0]?.lowerIsBetter ?? false,
      meanScore:
        scores.length === 0 ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length,
      passRate: judged === 0 ? null : count.passed / judged,
      meanScoreInterval: bootstrapMeanInterval({ values: scores, resamples }),
      passRateInterval: wilsonInterval({ successes: count.passed, trials: judged }),
      passed: count.passed,
      failed: count.failed,
      errored: count.errored,
      scoreOnly: count["score-only"],
    };
  });
}

/**
 * Cases of a `repeat` run with some trials passed and some not, in run order, each with a 95%
 * Wilson interval of its pass rate; its place counted from 1 in run (index) order.
 */
export function findFlakyCases(testResults: readonly TestResult[]): FlakyCase[] {
  const ordered = [...testResults].sort((a, b) => a.index - b.index);
  return ordered.flatMap((result, offset) => {
    const trials = result.trials.length;
    if (trials < 2 || result.passedTrials === 0 || result.passedTrials === trials) return [];
    return [
      {
        name: result.name,
        position: offset + 1,
        passedTrials: result.passedTrials,
        trials,
        passRateInterval: wilsonInterval({ successes: result.passedTrials, trials }) as [
          number,
          number,
        ],
      },
    ];
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
  const flakyCases = findFlakyCases(testResults);
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
    ...(flakyCases.length > 0 ? { flakyCases } : {}),
    ...(usesFakeJudge(testResults) ? { fakeJudge: true as const } : {}),
  };
}
