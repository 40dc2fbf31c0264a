import { StoreError } from "../errors/store-error.ts";
import { type CacheMode, JudgeScheduler, type RequestGate } from "../evaluate/scheduler.ts";
import { openRunStore } from "../store/open-run-store.ts";
import type { JudgeCache } from "../store/run-store.ts";
import { connectRequestSlots, REQUEST_SLOTS_ENV } from "./request-slots.ts";

/** Options of {@link getWorkerScheduler}. */
export interface GetWorkerSchedulerOptions {
  /** Judge requests in flight per judge model. */
  maxConcurrent: number;
  cache: CacheMode;
  /** Where the default store (`VERDICT_HOME`) is found. */
  env: NodeJS.ProcessEnv;
}

interface WorkerState {
  schedulers: Map<string, JudgeScheduler>;
  /** The slots shared with the other workers of `verdict test run`, once connected. */
  gate: RequestGate | null | undefined;
  /** `undefined`: not opened yet; `null`: could not be opened (warned once). */
  cache: JudgeCache | null | undefined;
}

// On globalThis rather than in a module variable: Vitest evaluates this module afresh for
// every test file, but the worker process (and its judge quota, cache and concurrency) is one.
const STATE_KEY = Symbol.for("verdict.vitest.worker-state");

function workerState(): WorkerState {
  const holder = globalThis as { [STATE_KEY]?: WorkerState };
  holder[STATE_KEY] ??= { schedulers: new Map(), cache: undefined, gate: undefined };
  return holder[STATE_KEY];
}

function openJudgeCache(env: NodeJS.ProcessEnv): JudgeCache | null {
  try {
    const store = openRunStore({ env });
    process.once("exit", () => store.close());
    return store.judgeCache ?? null;
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    console.warn(
      `Warning: ${error.message} The evals in this worker go on without the judge cache.`,
    );
    return null;
  }
}

/**
 * The judge scheduler shared by every assertion of this worker process, created on first use:
 * one concurrency limit per judge model, identical requests asked once, and the judge cache of
 * the store (`VERDICT_STORE`, else the SQLite store of `VERDICT_HOME`), which all workers share. A store that cannot be opened means no
 * cache, with one warning. Assertions asking for a different `maxConcurrent` or cache mode get
 * their own scheduler. Under `verdict test run`, every scheduler of every worker also holds a
 * slot of the CLI's shared limit (`-n`) per request ({@link REQUEST_SLOTS_ENV}).
 * @example
 * const scheduler = getWorkerScheduler({ maxConcurrent: 20, cache: true, env: process.env });
 */
export function getWorkerScheduler(options: GetWorkerSchedulerOptions): JudgeScheduler {
  const state = workerState();
  const key = `${options.maxConcurrent}/${String(options.cache)}`;
  let scheduler = state.schedulers.get(key);
  if (scheduler === undefined) {
    if (options.cache !== false && state.cache === undefined) {
      state.cache = openJudgeCache(options.env);
    }
    if (state.gate === undefined) {
      const address = options.env[REQUEST_SLOTS_ENV];
      state.gate = address ? connectRequestSlots(address) : null;
    }
    scheduler = new JudgeScheduler({
      ...(state.gate === null ? {} : { gate: state.gate }),
      maxConcurrent: options.maxConcurrent,
      cache: options.cache === false ? null : (state.cache ?? null),
      cacheMode: options.cache,
    });
    state.schedulers.set(key, scheduler);
  }
  return scheduler;
}
