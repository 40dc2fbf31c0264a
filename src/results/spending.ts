import { metricsOfCase } from "./case-metrics.ts";
import type { JudgeSpending, TestResult } from "./evaluation-result.ts";

/**
 * Adds two costs; unknown (`null`) stays unknown rather than becoming a made-up number.
 * @example
 * addCosts(0.001, 0.002); // 0.003
 * addCosts(0.002, null); // null
 */
export function addCosts(first: number | null, second: number | null): number | null {
  return first === null || second === null ? null : first + second;
}

function subtractCosts(now: number | null, before: number | null): number | null {
  return now === null || before === null ? null : now - before;
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

/** Combines two spendings field by field; costs go through `cost` (unknown stays unknown). */
function combine(first: JudgeSpending, second: JudgeSpending, sign: 1 | -1): JudgeSpending {
  const cost = sign === 1 ? addCosts : subtractCosts;
  return {
    judgeCalls: first.judgeCalls + sign * second.judgeCalls,
    cacheHits: first.cacheHits + sign * second.cacheHits,
    sharedCalls: first.sharedCalls + sign * second.sharedCalls,
    inputTokens: first.inputTokens + sign * second.inputTokens,
    outputTokens: first.outputTokens + sign * second.outputTokens,
    costUsd: cost(first.costUsd, second.costUsd),
    saved: {
      judgeCalls: first.saved.judgeCalls + sign * second.saved.judgeCalls,
      inputTokens: first.saved.inputTokens + sign * second.saved.inputTokens,
      outputTokens: first.saved.outputTokens + sign * second.saved.outputTokens,
      costUsd: cost(first.saved.costUsd, second.saved.costUsd),
    },
  };
}

/** The sum of two spendings (unknown costs stay unknown). */
export function addSpending(total: JudgeSpending, part: JudgeSpending): JudgeSpending {
  return combine(total, part, 1);
}

/** What was spent between a snapshot and now (unknown cost stays unknown). */
export function spendingSince(options: {
  before: JudgeSpending;
  now: JudgeSpending;
}): JudgeSpending {
  return combine(options.now, options.before, -1);
}

/** A copy of the spending figures, to measure one run on a shared scheduler. */
export function snapshotSpending(spending: JudgeSpending): JudgeSpending {
  return addSpending(emptySpending(), spending);
}

/**
 * What a set of results spent on the judge, added up from each metric's own figures
 * (`judgeCalls`, `cachedJudgeCalls`, `sharedJudgeCalls`, tokens, `evaluationCost`, `saved`).
 * This is what a run gathered from many processes (Vitest workers, shards) can know; on the
 * same cases it equals what evaluate()'s scheduler counts.
 */
export function spendingOfResults(testResults: readonly TestResult[]): JudgeSpending {
  const total = emptySpending();
  for (const result of testResults) {
    for (const metric of metricsOfCase(result)) {
      const shared = metric.sharedJudgeCalls;
      total.judgeCalls += metric.judgeCalls - metric.cachedJudgeCalls;
      total.cacheHits += metric.cachedJudgeCalls - shared;
      total.sharedCalls += shared;
      total.inputTokens += metric.inputTokens ?? 0;
      total.outputTokens += metric.outputTokens ?? 0;
      total.costUsd = addCosts(total.costUsd, metric.evaluationCost);
      total.saved.judgeCalls += metric.cachedJudgeCalls;
      total.saved.inputTokens += metric.saved?.inputTokens ?? 0;
      total.saved.outputTokens += metric.saved?.outputTokens ?? 0;
      total.saved.costUsd = addCosts(
        total.saved.costUsd,
        metric.saved ? metric.saved.costUsd : null,
      );
    }
  }
  return total;
}
