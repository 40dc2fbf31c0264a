import type { JudgeCache, JudgeLeases } from "../store/run-store.ts";
import { BudgetLedger } from "./budget/judge-budget.ts";
import type { JudgeSchedulerOptions } from "./judge-scheduler-options.ts";
import type { RunOptions } from "./run-options.ts";
import { JudgeScheduler } from "./scheduler.ts";

/**
 * The scheduler of a run from its options: concurrency, throttle, retries, cache mode, and
 * provider batches when `run.batch` asks for them (with where they are recorded and reported),
 * and a budget ledger when `run.budget` sets caps;
 * its warnings (a judge cache that fails, a batch log that cannot be written) go to `onWarning`.
 */
export function createRunScheduler(options: {
  run: RunOptions;
  cache: JudgeCache | null;
  leases?: JudgeLeases | null;
  signal: AbortSignal;
  batchHooks?: Pick<JudgeSchedulerOptions, "batchLog" | "onBatch">;
  /** Where warnings that cost no result go (a failing judge cache or batch log). */
  onWarning?: (message: string) => void;
}): JudgeScheduler {
  const { run } = options;
  return new JudgeScheduler({
    ...(run.maxConcurrent !== undefined ? { maxConcurrent: run.maxConcurrent } : {}),
    ...(run.throttleMs !== undefined ? { throttleMs: run.throttleMs } : {}),
    ...(run.retry ? { retry: run.retry } : {}),
    cache: options.cache,
    leases: options.leases ?? null,
    cacheMode: run.cache ?? true,
    ...(run.budget === undefined ? {} : { budget: new BudgetLedger(run.budget) }),
    signal: options.signal,
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    ...(run.batch !== undefined && run.batch !== false
      ? { batch: run.batch, ...options.batchHooks }
      : {}),
  });
}
