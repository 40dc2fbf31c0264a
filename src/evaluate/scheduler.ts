import { BudgetExhaustedError } from "../errors/budget-exhausted-error.ts";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { sendToJudge } from "../judge/direct-transport.ts";
import type { JudgeBatchApi, JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import type { JudgeCallMeta, JudgeResponse, JudgeTransport } from "../judge/judge-transport.ts";
import { type RetryPolicy, resolveRetryPolicy } from "../judge/retry-policy.ts";
import { BATCH_PRICE_FACTOR, type ModelPrice } from "../judge/usage-and-cost.ts";
import type { AttemptSlot, Sleep } from "../judge/with-retries.ts";
import type { JudgeSpending } from "../results/evaluation-result.ts";
import { addCosts, emptySpending } from "../results/spending.ts";
import type {
  CachedJudgeAnswer,
  JudgeBatchLog,
  JudgeCache,
  JudgeCacheClaim,
  JudgeLeases,
} from "../store/run-store.ts";
import { BatchDispatcher } from "./batch-dispatcher.ts";
import {
  type BatchOptions,
  type JudgeBatchProgress,
  resolveBatchOptions,
} from "./batch-options.ts";
import { BudgetedCall } from "./budget/budgeted-call.ts";
import type { JudgeBudget } from "./budget/judge-budget.ts";
import { spentBy, worstCaseOf } from "./budget/worst-case.ts";
import { JudgeCacheFallback } from "./judge-cache-fallback.ts";
import { judgeCacheKey } from "./judge-cache-key.ts";
import { ModelLane } from "./model-lane.ts";
import { waitUnlessAborted } from "./wait-unless-aborted.ts";

/** How the judge cache is used: on, off, or "replay" (a miss is an error). */
export type CacheMode = true | false | "replay";

/** Options of {@link JudgeScheduler}. */
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

/** Request slots shared by several schedulers (see {@link JudgeSchedulerOptions.gate}). */
export interface RequestGate {
  /** Waits for a slot for one request to `judgeName`; resolves with the slot's release. */
  acquire(options: {
    judgeName: string;
    priority: number;
    signal: AbortSignal | undefined;
  }): Promise<() => void>;
}

/** One judge request in flight, shared by every caller asking the same. */
interface InFlightRequest {
  judgeName: string;
  promise: Promise<JudgeResponse>;
  controller: AbortController;
  waiters: number;
}

/** What the scheduler did, for the run summary. */
export interface SchedulerStats extends JudgeSpending {
  retries: number;
  rateLimited: number;
  /** Highest number of requests in flight at once to one model. */
  peakInFlight: number;
}

/**
 * The judge transport of a run, shared by every metric and test case: at most
 * `maxConcurrent` requests in flight per judge model (lowered by sustained 429s, raised back
 * by successes), `throttleMs` between dispatches, retries with backoff, identical requests
 * made once (shared in flight, then cached), a clean stop on an exhausted quota, and a
 * stop of one judge on a rejected key or an unknown model: its queued, in-flight and later
 * requests fail at once with that error, without a call.
 */
export class JudgeScheduler implements JudgeTransport {
  private readonly options: JudgeSchedulerOptions;
  private readonly lanes = new Map<string, ModelLane>();
  private readonly inFlight = new Map<string, InFlightRequest>();
  private stopError: Error | null = null;
  private readonly batcher: BatchDispatcher | null;
  /** The next request priority to hand out: cases (and unnumbered requests) in arrival order. */
  private nextPriority = 0;
  /** Judges stopped by a rejected key or an unknown model, with the error that stopped each. */
  private readonly judgeStops = new Map<string, Error>();
  private readonly cacheFallback: JudgeCacheFallback;
  readonly stats: SchedulerStats = {
    ...emptySpending(),
    retries: 0,
    rateLimited: 0,
    peakInFlight: 0,
  };

  constructor(options: JudgeSchedulerOptions = {}) {
    const maxConcurrent = options.maxConcurrent ?? 20;
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new EvalError(
        "CONFIG",
        `maxConcurrent must be a whole number of at least 1; got ${maxConcurrent}.`,
      );
    }
    if (options.throttleMs !== undefined && !(options.throttleMs >= 0)) {
      throw new EvalError("CONFIG", `throttleMs must be 0 or more; got ${options.throttleMs}.`);
    }
    // A bad retry policy is refused before any request, not once per request.
    resolveRetryPolicy(options.retry);
    this.options = { ...options, maxConcurrent };
    this.cacheFallback = new JudgeCacheFallback({
      warn: options.onWarning ?? ((message) => console.warn(message)),
    });
    this.batcher =
      options.batch === undefined || options.batch === false
        ? null
        : new BatchDispatcher({
            batch: resolveBatchOptions(options.batch),
            log: options.batchLog ?? null,
            onProgress: options.onBatch,
            onWarning: options.onWarning,
            retry: options.retry,
            sleep: options.sleep,
            random: options.random,
            now: options.now,
          });
    options.signal?.addEventListener(
      "abort",
      () =>
        this.stop(
          new EvalError("ABORTED", "The run was cancelled: no more judge requests are sent."),
        ),
      { once: true },
    );
  }

  /** The budget the scheduler's calls reserve against, if any. */
  get budget(): JudgeBudget | null {
    return this.options.budget ?? null;
  }

  /** The error that stopped dispatching (exhausted quota, cancellation), if any. */
  get stoppedBy(): Error | null {
    return this.stopError;
  }

  /**
   * The error that stopped one judge (a rejected key, an unknown model: a `JudgeCallError` of
   * kind `"configuration"`), if any. Other judges go on.
   */
  judgeStoppedBy(judgeName: string): Error | null {
    return this.judgeStops.get(judgeName) ?? null;
  }

  /**
   * A transport for one case: every request it sends carries the priority the case took when
   * it first asked, so that the scheduler serves the earliest-started case first (FIFO within
   * it) and early cases finish early, at no cost to the run's wall time.
   */
  forCase(): JudgeTransport {
    let priority: number | null = null;
    return {
      send: (judge, request, meta) => {
        priority ??= this.nextPriority++;
        return this.send(judge, request, { ...meta, priority: meta.priority ?? priority });
      },
    };
  }

  async send(
    judge: JudgeModel,
    request: JudgeRequest,
    meta: JudgeCallMeta,
  ): Promise<JudgeResponse> {
    if (this.stopError) throw this.stopError;
    const judgeStop = this.judgeStoppedBy(judge.name);
    if (judgeStop) throw judgeStop;
    const key = judgeCacheKey({ judge, request, trial: meta.trial });
    let entry = this.inFlight.get(key);
    const shared = entry !== undefined;
    if (!entry) {
      // The call belongs to every caller waiting on it, not to the first one: it has its own
      // controller, aborted only when the run stops or every waiter has given up.
      const controller = new AbortController();
      const created: InFlightRequest = {
        judgeName: judge.name,
        controller,
        waiters: 0,
        promise: this.fetch({
          key,
          judge,
          request: { ...request, signal: controller.signal },
          meta,
        }),
      };
      created.promise
        .finally(() => {
          if (this.inFlight.get(key) === created) this.inFlight.delete(key);
        })
        .catch(() => {});
      this.inFlight.set(key, created);
      entry = created;
    }
    entry.waiters += 1;
    try {
      const response = await waitUnlessAborted({ promise: entry.promise, signal: request.signal });
      if (!shared) return response;
      this.stats.sharedCalls += 1;
      this.recordSaving({
        inputTokens: response.usage?.inputTokens ?? null,
        outputTokens: response.usage?.outputTokens ?? null,
        costUsd: response.costUsd,
      });
      return { ...response, cached: true, shared: true };
    } finally {
      entry.waiters -= 1;
      if (entry.waiters === 0 && request.signal?.aborted)
        entry.controller.abort(request.signal.reason);
    }
  }

  private async fetch(options: {
    key: string;
    judge: JudgeModel;
    request: JudgeRequest;
    meta: JudgeCallMeta;
  }): Promise<JudgeResponse> {
    const { key, judge, request, meta } = options;
    const mode = this.options.cacheMode ?? true;
    const cache = mode === false ? null : (this.options.cache ?? null);
    // A cache shared with other processes hands out leases: of all the processes asking this
    // request now, one pays and the others wait for its answer. Not for a request sent in a
    // provider batch: that may wait hours, and thousands of leases renewed all along would
    // cost more than the rare request two processes batch at once (at half price).
    const leases =
      cache !== null && mode === true && !this.batcher?.handles(judge)
        ? (this.options.leases ?? null)
        : null;
    // A claim the store failed (null) goes on without a lease, as a miss.
    const claim =
      leases === null
        ? undefined
        : await this.cacheFallback.claim({ leases, key, signal: request.signal });
    const lease = claim != null && "lease" in claim ? claim.lease : null;
    try {
      return await this.answer({ key, judge, request, meta, cache, claim });
    } finally {
      await lease?.release();
    }
  }

  private async answer(options: {
    key: string;
    judge: JudgeModel;
    request: JudgeRequest;
    meta: JudgeCallMeta;
    cache: JudgeCache | null;
    /** The lease claim's outcome; `null`: it failed; `undefined`: no leases, read the cache. */
    claim: JudgeCacheClaim | null | undefined;
  }): Promise<JudgeResponse> {
    const { key, judge, request, meta, cache, claim } = options;
    const mode = this.options.cacheMode ?? true;
    const hit =
      claim === undefined
        ? cache === null
          ? undefined
          : await this.cacheFallback.read({ cache, key, replay: mode === "replay" })
        : claim !== null && "answer" in claim
          ? claim.answer
          : undefined;
    if (hit) {
      this.stats.cacheHits += 1;
      this.recordSaving(hit);
      return cachedResponse(hit);
    }
    if (mode === "replay") {
      throw new EvalError(
        "CACHE_MISS",
        `cache is "replay" but no answer is cached for judge "${judge.name}" (metric "${meta.metric}", ` +
          `step "${meta.step}"): run once with the cache on and a judge configured to record the ` +
          "answers (they are kept in .verdict/verdict.db), or change what differs from the recorded run.",
      );
    }

    try {
      const direct = () => this.callDirect({ judge, request, meta });
      const batcher = this.batcher;
      // A request with images for a judge that cannot see them goes the direct way, which
      // refuses it with a clear error.
      const response =
        batcher?.handles(judge) &&
        (judge.supportsImages === true || (request.images?.length ?? 0) === 0)
          ? await this.sendBatched({
              batcher,
              key,
              judge,
              request,
              direct,
              priority: meta.priority,
            })
          : await direct();
      this.record(response);
      // Only answers the step accepts are kept: a malformed answer must be asked again next
      // run, not served from the cache for ever.
      if (meta.validate && !meta.validate(response)) return response;
      if (cache !== null) {
        await this.cacheFallback.write({
          cache,
          key,
          answer: {
            text: response.text,
            object: response.object ?? null,
            inputTokens: response.usage?.inputTokens ?? null,
            outputTokens: response.usage?.outputTokens ?? null,
            costUsd: response.costUsd,
            ...(response.logprobs === undefined ? {} : { logprobs: response.logprobs }),
          },
        });
      }
      return response;
    } catch (error) {
      if (error instanceof JudgeCallError && error.kind === "quota") this.stop(error);
      // The calls in flight were reserved and paid for: they end, and their answers are kept.
      else if (error instanceof BudgetExhaustedError) this.stop(error, { abortInFlight: false });
      else if (error instanceof JudgeCallError && error.kind === "configuration") {
        this.stopJudge(judge.name, error);
      }
      // A call cut short because its judge stopped fails with the error that stopped it, so
      // that every case says the same.
      throw this.judgeStoppedBy(judge.name) ?? error;
    }
  }

  /**
   * The answer the judge cache holds for a request, without asking the judge or counting
   * anything: what a dry run looks up. `undefined` on a miss, with the cache off (or no cache),
   * or when the cache cannot be read (warned once).
   */
  async lookUp(options: {
    judge: JudgeModel;
    request: JudgeRequest;
    trial: number;
  }): Promise<JudgeResponse | undefined> {
    const mode = this.options.cacheMode ?? true;
    const cache = mode === false ? null : (this.options.cache ?? null);
    if (cache === null) return undefined;
    const key = judgeCacheKey(options);
    const hit = await this.cacheFallback.read({ cache, key, replay: false });
    return hit === undefined ? undefined : cachedResponse(hit);
  }

  /** Whether requests are looked up in a judge cache (the cache is on and there is one). */
  get usesCache(): boolean {
    return (this.options.cacheMode ?? true) !== false && (this.options.cache ?? null) !== null;
  }

  /** A request sent through its judge's batches, its worst case reserved first with a budget. */
  private async sendBatched(options: {
    batcher: BatchDispatcher;
    key: string;
    judge: JudgeModel & { batch: JudgeBatchApi };
    request: JudgeRequest;
    direct: () => Promise<JudgeResponse>;
    priority: number | undefined;
  }): Promise<JudgeResponse> {
    const { batcher, key, judge } = options;
    const budget = this.options.budget ?? null;
    if (budget === null)
      return batcher.send({ key, judge, request: options.request, direct: options.direct });
    const price = this.priceFor(judge, budget);
    const worst = worstCaseOf({ request: options.request, price, factor: BATCH_PRICE_FACTOR });
    const reservation = await budget.reserve(worst.amount, {
      signal: options.request.signal,
      priority: options.priority,
    });
    // A request the batch sends directly after all reserves again there, at the list price.
    let sentDirectly = false;
    try {
      const response = await batcher.send({
        key,
        judge,
        request: { ...options.request, maxOutputTokens: worst.maxOutputTokens },
        direct: () => {
          sentDirectly = true;
          return options.direct();
        },
      });
      if (sentDirectly) reservation.release({ billed: false });
      else {
        reservation.settle(
          spentBy({
            answer: response,
            reserved: worst.amount,
            price,
            factor: BATCH_PRICE_FACTOR,
          }),
        );
      }
      return response;
    } catch (error) {
      reservation.release({ billed: false });
      throw error;
    }
  }

  /** The price a budget reserves at: refused when a cost cap cannot know it. */
  private priceFor(judge: JudgeModel, budget: JudgeBudget): ModelPrice | null {
    const price = judge.price ?? null;
    if (price === null && budget.limits.maxCostUsd !== null) {
      throw new ConfigError(
        `Judge "${judge.name}" has no known price, so a cost budget (maxCostUsd, --max-cost) cannot be kept: ` +
          "give it one (createJudge({ model, prices }), or a JudgeModel's price), or cap tokens instead (maxTokens, --max-tokens).",
      );
    }
    return price;
  }

  /** One request sent straight to its judge: a concurrency slot per attempt, retries. */
  private async callDirect(options: {
    judge: JudgeModel;
    request: JudgeRequest;
    meta: JudgeCallMeta;
  }): Promise<JudgeResponse> {
    const { judge, meta } = options;
    const lane = this.laneFor(judge.name);
    // A retry queues again with the same priority: it is still that case's request.
    const priority = meta.priority ?? this.nextPriority++;
    const { gate } = this.options;
    const laneSlot: AttemptSlot =
      gate === undefined
        ? {
            acquire: (signal) => lane.acquire(signal, priority),
            release: (outcome) => lane.release(outcome),
          }
        : gatedSlot({ lane, gate, judgeName: judge.name, priority });
    const budget = this.options.budget ?? null;
    let request = options.request;
    let budgeted: BudgetedCall | null = null;
    if (budget !== null) {
      const price = this.priceFor(judge, budget);
      const worst = worstCaseOf({ request, price, factor: 1 });
      budgeted = new BudgetedCall({ budget, worst, price, factor: 1, priority });
      request = { ...request, maxOutputTokens: worst.maxOutputTokens };
    }
    const slot = budgeted === null ? laneSlot : budgeted.slot(laneSlot);
    const response = await sendToJudge({
      judge,
      request,
      meta,
      ...(budgeted === null ? {} : { onAnswer: (answer) => budgeted.answered(answer) }),
      retry: this.options.retry,
      sleep: this.options.sleep,
      random: this.options.random,
      now: this.options.now,
      slot,
      onRetry: (info) => {
        this.stats.retries += 1;
        if (info.error.status === 429) {
          this.stats.rateLimited += 1;
        }
      },
    });
    lane.onSuccess();
    return response;
  }

  /** Adds what an answer would have cost, had it not come from the cache or a shared call. */
  private recordSaving(answer: {
    inputTokens: number | null;
    outputTokens: number | null;
    costUsd: number | null;
  }): void {
    const saved = this.stats.saved;
    saved.judgeCalls += 1;
    saved.inputTokens += answer.inputTokens ?? 0;
    saved.outputTokens += answer.outputTokens ?? 0;
    saved.costUsd = addCosts(saved.costUsd, answer.costUsd);
  }

  private record(response: JudgeResponse): void {
    this.stats.judgeCalls += 1;
    this.stats.inputTokens += response.usage?.inputTokens ?? 0;
    this.stats.outputTokens += response.usage?.outputTokens ?? 0;
    this.stats.costUsd = addCosts(this.stats.costUsd, response.costUsd);
  }

  private laneFor(name: string): ModelLane {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = new ModelLane({
        maxConcurrent: this.options.maxConcurrent ?? 20,
        throttleMs: this.options.throttleMs ?? 0,
        onDispatch: (inFlight) => {
          if (inFlight > this.stats.peakInFlight) this.stats.peakInFlight = inFlight;
        },
      });
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /**
   * Stops dispatching: every queued and later request fails with `error`, and the calls in
   * flight are cancelled, unless `abortInFlight` is false (a budget: they were paid for).
   */
  stop(error: Error, options: { abortInFlight?: boolean } = {}): void {
    if (this.stopError) return;
    this.stopError = error;
    for (const lane of this.lanes.values()) lane.rejectWaiting(error);
    if (options.abortInFlight === false) return;
    for (const entry of this.inFlight.values()) entry.controller.abort(error);
  }

  /**
   * Stops one judge after a failure no retry or later request can escape: queued and later
   * requests fail with `error`, and calls in flight are cancelled.
   */
  private stopJudge(judgeName: string, error: Error): void {
    if (this.judgeStops.has(judgeName)) return;
    this.judgeStops.set(judgeName, error);
    this.laneFor(judgeName).rejectWaiting(error);
    for (const entry of this.inFlight.values()) {
      if (entry.judgeName === judgeName) entry.controller.abort(error);
    }
  }

  /** Current concurrency limit of a model's lane (for tests and progress). */
  concurrencyOf(judgeName: string): number | null {
    return this.lanes.get(judgeName)?.limit ?? null;
  }
}

/** A cached answer as the transport hands it back: nothing paid. */
function cachedResponse(hit: CachedJudgeAnswer): JudgeResponse {
  return {
    text: hit.text,
    object: hit.object ?? undefined,
    usage:
      hit.inputTokens === null || hit.outputTokens === null
        ? null
        : { inputTokens: hit.inputTokens, outputTokens: hit.outputTokens },
    costUsd: hit.costUsd,
    cached: true,
    ...(hit.logprobs === undefined ? {} : { logprobs: hit.logprobs }),
  };
}

/** A lane's slot that also holds one of the gate's: the lane's first, then the gate's. */
function gatedSlot(options: {
  lane: ModelLane;
  gate: RequestGate;
  judgeName: string;
  priority: number;
}): AttemptSlot {
  const { lane, gate, judgeName, priority } = options;
  let releaseGate: (() => void) | null = null;
  return {
    acquire: async (signal) => {
      await lane.acquire(signal, priority);
      try {
        releaseGate = await gate.acquire({ judgeName, priority, signal });
      } catch (error) {
        lane.release({ error: null });
        throw error;
      }
    },
    release: (outcome) => {
      releaseGate?.();
      releaseGate = null;
      lane.release(outcome);
    },
  };
}
