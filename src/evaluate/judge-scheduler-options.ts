import type { RetryPolicy } from "../judge/retry-policy.ts";
import type { Sleep } from "../judge/with-retries.ts";
import type { JudgeBatchLog, JudgeCache, JudgeLeases } from "../store/run-store.ts";
import type { BatchOptions, JudgeBatchProgress } from "./batch-options.ts";
import type { JudgeBudget } from "./budget/judge-budget.ts";
import type { RequestGate } from "./request-gate.ts";

/** How the judge cache is used: on, off, or "replay" (a miss is an error). */
export type CacheMode = true | false | "replay";

/** Options of `JudgeScheduler`. */
export interface JudgeSchedulerOptions {
  /** Requests in flight per judge model. @default 20 */
  maxConcurrent?: number;
  /** Milliseconds between dispatches to one judge model. @default 0 */
  throttleMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Where answers are kept between runs; `null` for none. */
  cache?: JudgeCache | null;
  /**
   * Leases on the cache's keys, for a cache that several processes share: of the processes
   * asking the same request at once, one pays and the others wait for its answer. @default none
   */
  leases?: JudgeLeases | null;
  /** @default true */
  cacheMode?: CacheMode;
  /** Stops dispatching: queued and later requests fail with an "ABORTED" error. */
  signal?: AbortSignal;
  sleep?: Sleep;
  random?: () => number;
  /** The clock of the retry policy's `maxElapsedMs`. @default Date.now */
  now?: () => number;
  /**
   * A limit shared with other processes (Vitest workers): each attempt also holds one of its
   * slots, taken after this scheduler's own. @default none
   */
  gate?: RequestGate;
  /**
   * Sends the requests of judges that have a batch API (`JudgeModel.batch`: OpenAI, Anthropic)
   * through provider batches; others go directly. @default false
   */
  batch?: boolean | BatchOptions;
  /** Where batches are recorded, so a run killed while it waits resumes them. @default none */
  batchLog?: JudgeBatchLog | null;
  /** Told of every batch's progress (submitted, status, ended, sent directly). */
  onBatch?: (progress: JudgeBatchProgress) => void;
  /**
   * Where each judge call reserves the most it can cost before it is sent (see `worstCaseOf`):
   * a call that cannot fit is not sent, and the scheduler stops dispatching (the calls in
   * flight end and are kept). Requests then carry a `maxOutputTokens`. @default none
   */
  budget?: JudgeBudget | null;
  /**
   * Told of problems that cost no result: the batch log or the judge cache could not be used
   * (a cache that fails is a miss, an answer it cannot keep is still scored; once each).
   * @default console.warn
   */
  onWarning?: (message: string) => void;
}
