import type { JudgeCache, JudgeLeases } from "../store/run-store.ts";
import type { RunOptions } from "./run-options.ts";
import { JudgeScheduler, type JudgeSchedulerOptions } from "./scheduler.ts";

/**
 * The scheduler of a run from its options: concurrency, throttle, retries, cache mode, and
 * provider batches when `run.batch` asks for them (with where they are recorded and reported).
 */
export function createRunScheduler(options: {
  run: RunOptions;
  cache: JudgeCache | null;
  leases?: JudgeLeases | null;
  signal: AbortSignal;
  batchHooks?: Pick<JudgeSchedulerOptions, "batchLog" | "onBatch" | "onWarning">;
}): JudgeScheduler {
  const { run } = options;
  return new JudgeScheduler({
    ...(run.maxConcurrent !== undefined ? { maxConcurrent: run.maxConcurrent } : {}),
    ...(run.throttleMs !== undefined ? { throttleMs: run.throttleMs } : {}),
    ...(run.retry ? { retry: run.retry } : {}),
    cache: options.cache,
    leases: options.leases ?? null,
    cacheMode: run.cache ?? true,
    signal: options.signal,
    ...(run.batch !== undefined && run.batch !== false
      ? { batch: run.batch, ...options.batchHooks }
      : {}),
  });
}
