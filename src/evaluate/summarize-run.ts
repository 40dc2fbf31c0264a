import { addCosts } from "../judge/usage-and-cost.ts";
import type { MetricData } from "../metrics/metric-data.ts";
import type {
  EvaluationSummary,
  JudgeSpending,
  MetricSummary,
  RunStatus,
  TestResult,
} from "./evaluation-result.ts";

/**
 * Whether a set of metric results passes: any failure or error fails (a score-only metric
 * that errored too); only score-only results → `null`.
 */
export function decideSuccess(metricsData: readonly MetricData[]): boolean | null {
  if (metricsData.some((metric) => metric.success === false || metric.error !== null)) return false;
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

/** Spending of nothing: the start of every total. */
export function emptySpending(): JudgeSpending {
  return {
    judgeCalls: 0,
    cacheHits: 0,
    sharedCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    saved: { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
  };
}

/** The sum of two spendings (unknown costs stay unknown). */
export function addSpending(total: JudgeSpending, part: JudgeSpending): JudgeSpending {
  return {
    judgeCalls: total.judgeCalls + part.judgeCalls,
    cacheHits: total.cacheHits + part.cacheHits,
    sharedCalls: total.sharedCalls + part.sharedCalls,
    inputTokens: total.inputTokens + part.inputTokens,
    outputTokens: total.outputTokens + part.outputTokens,
    costUsd: addCosts(total.costUsd, part.costUsd),
    saved: {
      judgeCalls: total.saved.judgeCalls + part.saved.judgeCalls,
      inputTokens: total.saved.inputTokens + part.saved.inputTokens,
      outputTokens: total.saved.outputTokens + part.saved.outputTokens,
      costUsd: addCosts(total.saved.costUsd, part.saved.costUsd),
    },
  };
}

/** A copy of the spending figures, to measure one run on a shared scheduler. */
export function snapshotSpending(spending: JudgeSpending): JudgeSpending {
  return {
    judgeCalls: spending.judgeCalls,
    cacheHits: spending.cacheHits,
    sharedCalls: spending.sharedCalls,
    inputTokens: spending.inputTokens,
    outputTokens: spending.outputTokens,
    costUsd: spending.costUsd,
    saved: { ...spending.saved },
  };
}

function minus(now: number | null, before: number | null): number | null {
  return now === null || before === null ? null : now - before;
}

/** What was spent between a snapshot and now (unknown cost stays unknown). */
export function spendingSince(options: {
  before: JudgeSpending;
  now: JudgeSpending;
}): JudgeSpending {
  const { before, now } = options;
  return {
    judgeCalls: now.judgeCalls - before.judgeCalls,
    cacheHits: now.cacheHits - before.cacheHits,
    sharedCalls: now.sharedCalls - before.sharedCalls,
    inputTokens: now.inputTokens - before.inputTokens,
    outputTokens: now.outputTokens - before.outputTokens,
    costUsd: minus(now.costUsd, before.costUsd),
    saved: {
      judgeCalls: now.saved.judgeCalls - before.saved.judgeCalls,
      inputTokens: now.saved.inputTokens - before.saved.inputTokens,
      outputTokens: now.saved.outputTokens - before.saved.outputTokens,
      costUsd: minus(now.saved.costUsd, before.saved.costUsd),
    },
  };
}

/** The totals of a run from its results and what it spent on the judge. */
export function summarizeRun(options: {
  status: RunStatus;
  testResults: readonly TestResult[];
  total: number;
  spending: JudgeSpending;
  durationMs: number;
}): EvaluationSummary {
  const { testResults } = options;
  return {
    status: options.status,
    metrics: summarizeMetrics(testResults),
    testCases: {
      total: options.total,
      passed: testResults.filter((result) => result.success !== false).length,
      failed: testResults.filter((result) => result.success === false).length,
      unscored: options.total - testResults.length,
    },
    ...snapshotSpending(options.spending),
    durationMs: options.durationMs,
  };
}
