import type { JudgeResponse } from "../judge/judge-transport.ts";
import type { JudgeSpending } from "../results/evaluation-result.ts";
import { addCosts, emptySpending } from "../results/spending.ts";

/** What the scheduler did, for the run summary. */
export interface SchedulerStats extends JudgeSpending {
  retries: number;
  rateLimited: number;
  /** Highest number of requests in flight at once to one model. */
  peakInFlight: number;
}

/** The stats of a scheduler that has done nothing yet. */
export function emptySchedulerStats(): SchedulerStats {
  return {
    ...emptySpending(),
    retries: 0,
    rateLimited: 0,
    peakInFlight: 0,
  };
}

/** Adds a judge call paid for: one call, its tokens and its cost. */
export function recordJudgeCall(stats: SchedulerStats, response: JudgeResponse): void {
  stats.judgeCalls += 1;
  stats.inputTokens += response.usage?.inputTokens ?? 0;
  stats.outputTokens += response.usage?.outputTokens ?? 0;
  stats.costUsd = addCosts(stats.costUsd, response.costUsd);
}

/** Adds what an answer would have cost, had it not come from the cache or a shared call. */
export function recordSaving(
  stats: SchedulerStats,
  answer: {
    inputTokens: number | null;
    outputTokens: number | null;
    costUsd: number | null;
  },
): void {
  const saved = stats.saved;
  saved.judgeCalls += 1;
  saved.inputTokens += answer.inputTokens ?? 0;
  saved.outputTokens += answer.outputTokens ?? 0;
  saved.costUsd = addCosts(saved.costUsd, answer.costUsd);
}
