import type { JudgeBudget } from "../evaluate/budget/judge-budget.ts";
import type { CacheMode } from "../evaluate/judge-scheduler-options.ts";
import type { RequestGate } from "../evaluate/request-gate.ts";
import { JudgeScheduler } from "../evaluate/scheduler.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/run-store.ts";
import { BUDGET_ENV, connectBudget } from "./budget-broker.ts";
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
  /** The budget of `verdict test run --max-cost/--max-tokens`, once connected. */
  budget: JudgeBudget | null | undefined;
  /** `undefined`: not opened yet; `null`: could not be opened (warned once). */
  store: Promise<Store | null> | undefined;
}

// On globalThis rather than in a module variable: Vitest evaluates this module afresh for
// every test file, but the worker process (and its judge quota, cache and concurrency) is one.
const STATE_KEY = Symbol.for("verdict.vitest.worker-state");

function workerState(): WorkerState {
  const holder = globalThis as { [STATE_KEY]?: WorkerState };
  holder[STATE_KEY] ??= {
    schedulers: new Map(),
    store: undefined,
    gate: undefined,
    budget: undefined,
  };
  return holder[STATE_KEY];
}

// The worker's store, opened once (see openStore: a store the user named must open; the
// default one may fall back, and the evals of this worker then go on without the cache). The
// main process opened it already: a server away for a moment (a restart) is waited out.
async function openWorkerStore(env: NodeJS.ProcessEnv): Promise<Store | null> {
  const opened = await openStore({
    env,
    withoutStore: "the evals in this worker go on without the judge cache",
    retryOpen: true,
  });
  if (opened.warning !== null) console.warn(opened.warning);
  const { store } = opened;
  if (store !== null && opened.owned) process.once("exit", () => void store.close());
  return store;
}

/**
 * The judge scheduler shared by every assertion of this worker process, created on first use:
 * one concurrency limit per judge model, identical requests asked once, and the judge cache of
 * the store (`VERDICT_STORE`, else the SQLite store of `VERDICT_HOME`), which all workers share. A store that cannot be opened means no
 * cache, with one warning. Assertions asking for a different `maxConcurrent` or cache mode get
 * their own scheduler. Under `verdict test run`, every scheduler of every worker also holds a
 * slot of the CLI's shared limit (`-n`) per request ({@link REQUEST_SLOTS_ENV}), and reserves
 * each call against the command's budget when it has one ({@link BUDGET_ENV}).
 * @example
 * const scheduler = getWorkerScheduler({ maxConcurrent: 20, cache: true, env: process.env });
 */
export async function getWorkerScheduler(
  options: GetWorkerSchedulerOptions,
): Promise<JudgeScheduler> {
  const state = workerState();
  const key = `${options.maxConcurrent}/${String(options.cache)}`;
  let scheduler = state.schedulers.get(key);
  if (scheduler === undefined) {
    let store: Store | null = null;
    if (options.cache !== false) {
      state.store ??= openWorkerStore(options.env);
      try {
        store = await state.store;
      } catch (error) {
        // Not kept: the next assertion tries again, and fails with the same clear error.
        state.store = undefined;
        throw error;
      }
    }
    // Another assertion may have made it while the store opened.
    const made = state.schedulers.get(key);
    if (made !== undefined) return made;
    if (state.gate === undefined) {
      const address = options.env[REQUEST_SLOTS_ENV];
      state.gate = address ? connectRequestSlots(address) : null;
    }
    if (state.budget === undefined) {
      const budget = options.env[BUDGET_ENV];
      state.budget = budget ? connectBudget(budget) : null;
    }
    scheduler = new JudgeScheduler({
      ...(state.gate === null ? {} : { gate: state.gate }),
      ...(state.budget === null ? {} : { budget: state.budget }),
      maxConcurrent: options.maxConcurrent,
      cache: store?.judgeCache ?? null,
      leases: store?.leases ?? null,
      cacheMode: options.cache,
    });
    state.schedulers.set(key, scheduler);
  }
  return scheduler;
}
