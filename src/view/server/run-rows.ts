import type { EvaluationSummary, RunStatus, TestResult } from "../../results/evaluation-result.ts";
import { spendingOfResults } from "../../results/spending.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import type { RunLiveness } from "../../store/run-liveness.ts";
import type { StoredRun } from "../../store/run-store.ts";
import type { RunRow } from "../api.ts";

/** A run's summary with every field the dashboard shows (`testCases.errored`, `judges`). */
export type FullSummary = EvaluationSummary & {
  testCases: EvaluationSummary["testCases"] & { errored: number };
  judges: string[];
};

/** Whether a stored summary already has what the dashboard shows, so no result need be read. */
export function isFullSummary(summary: EvaluationSummary | null): summary is FullSummary {
  return (
    summary !== null && summary.testCases.errored !== undefined && summary.judges !== undefined
  );
}

/** How many cases a run plans: its summary's total, else its configuration's, else those stored. */
function plannedTotal(run: StoredRun, stored: number): number {
  const configured = run.config.testCases;
  const planned =
    run.summary?.testCases.total ?? (typeof configured === "number" ? configured : stored);
  return Math.max(planned, stored);
}

/**
 * A run's summary worked out from its results: for a run in progress (no summary yet), one that
 * died without one, or one stored before summaries counted errored cases and judges (its
 * stored figures — spending, duration — are kept).
 */
export function summarizeStoredRun(options: {
  run: StoredRun;
  status: RunStatus;
  results: readonly TestResult[];
}): FullSummary {
  const { run, status, results } = options;
  const computed = summarizeRun({
    status,
    testResults: results,
    total: plannedTotal(run, results.length),
    spending: spendingOfResults(results),
    durationMs: run.endedAt === null ? 0 : Date.parse(run.endedAt) - Date.parse(run.startedAt),
  }) as FullSummary;
  if (run.summary === null) return computed;
  return {
    ...run.summary,
    status,
    testCases: { ...run.summary.testCases, errored: computed.testCases.errored },
    judges: computed.judges,
  };
}

function configuredJudges(config: Record<string, unknown>): string[] {
  const metrics = Array.isArray(config.metrics) ? config.metrics : [];
  const names = metrics.flatMap((metric) => {
    const judge = (metric as { judge?: unknown } | null)?.judge;
    return typeof judge === "string" ? [judge] : [];
  });
  return [...new Set(names)].sort();
}

/** A run as the runs list shows it. */
export function toRunRow(options: {
  run: StoredRun;
  liveness: RunLiveness;
  summary: FullSummary;
  /** @default null: not a watch session's run */
  watchSession?: RunRow["watchSession"];
}): RunRow {
  const { run, liveness, summary } = options;
  const { testCases } = summary;
  const durationMs =
    run.summary?.durationMs ??
    (run.endedAt === null ? null : Date.parse(run.endedAt) - Date.parse(run.startedAt));
  // A run that shards wrote together is the whole run, not one shard of it.
  const shard = run.shards === undefined ? run.config.shard : null;
  return {
    id: run.id,
    shortId: run.id.slice(0, 8),
    identifier: run.identifier,
    status: liveness.status,
    stale: liveness.stale
      ? { reason: liveness.reason ?? "", resumeCommand: liveness.resumeCommand }
      : null,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    durationMs: durationMs === null || Number.isNaN(durationMs) ? null : durationMs,
    cases: {
      total: testCases.total,
      passed: testCases.passed,
      failed: testCases.failed - testCases.errored,
      errored: testCases.errored,
      unscored: testCases.unscored,
    },
    metrics: summary.metrics.map((metric) => ({
      name: metric.name,
      lowerIsBetter: metric.lowerIsBetter,
      meanScore: metric.meanScore,
      passRate: metric.passRate,
      meanScoreInterval: metric.meanScoreInterval ?? null,
      passRateInterval: metric.passRateInterval ?? null,
      passed: metric.passed,
      failed: metric.failed,
      errored: metric.errored,
      scoreOnly: metric.scoreOnly,
    })),
    judgeCalls: summary.judgeCalls,
    cacheHits: summary.cacheHits,
    costUsd: summary.costUsd,
    judges: summary.judges.length > 0 ? summary.judges : configuredJudges(run.config),
    shard: typeof shard === "string" ? shard : null,
    fakeJudge: summary.fakeJudge === true,
    watchSession: options.watchSession ?? null,
  };
}
