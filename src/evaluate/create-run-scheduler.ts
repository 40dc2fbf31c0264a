import type { JudgeCache } from "../store/run-store.ts";
import type { RunOptions } from "./run-options.ts";
import { JudgeScheduler } from "./scheduler.ts";

/** The scheduler of a run from its options: concurrency, throttle, retries and cache mode. */
export function createRunScheduler(options: {
  run: RunOptions;
  cache: JudgeCache | null;
  signal: AbortSignal;
}): JudgeScheduler {
  const { run } = options;
  return new JudgeScheduler({
    ...(run.maxConcurrent !== undefined ? { maxConcurrent: run.maxConcurrent } : {}),
    ...(run.throttleMs !== undefined ? { throttleMs: run.throttleMs } : {}),
    ...(run.retry ? { retry: run.retry } : {}),
    cache: options.cache,
    cacheMode: run.cache ?? true,
    signal: options.signal,
  });
}
