import { BudgetExhaustedError } from "../errors/budget-exhausted-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { sendToJudge } from "../judge/direct-transport.ts";
import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import type { JudgeCallMeta, JudgeResponse, JudgeTransport } from "../judge/judge-transport.ts";
import { resolveRetryPolicy } from "../judge/retry-policy.ts";
import type { AttemptSlot } from "../judge/with-retries.ts";
import type { JudgeCache, JudgeCacheClaim } from "../store/run-store.ts";
import { BatchDispatcher } from "./batch-dispatcher.ts";
import { resolveBatchOptions } from "./batch-options.ts";
import { budgetPrice } from "./budget/budget-price.ts";
import { BudgetedCall } from "./budget/budgeted-call.ts";
import type { JudgeBudget } from "./budget/judge-budget.ts";
import { sendBatchedWithinBudget } from "./budget/send-batched-within-budget.ts";
import { worstCaseOf } from "./budget/worst-case.ts";
import { cachedResponse } from "./cached-response.ts";
import { HeldFirstSlot } from "./held-first-slot.ts";
import { InFlightRequests } from "./in-flight-requests.ts";
import { judgeCacheKey } from "./judge-cache-key.ts";
import type { JudgeSchedulerOptions } from "./judge-scheduler-options.ts";
import { laneSlot } from "./lane-slot.ts";
import { ModelLanes } from "./model-lanes.ts";
import { RunJudgeCache } from "./run-judge-cache.ts";
import {
  emptySchedulerStats,
  recordJudgeCall,
  recordSaving,
  type SchedulerStats,
} from "./scheduler-stats.ts";
import { waitUnlessAborted } from "./wait-unless-aborted.ts";

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
  private readonly lanes: ModelLanes;
  private readonly inFlight = new InFlightRequests();
  private stopError: Error | null = null;
  private readonly batcher: BatchDispatcher | null;
  /** The next request priority to hand out: cases (and unnumbered requests) in arrival order. */
  private nextPriority = 0;
  /** Judges stopped by a rejected key or an unknown model, with the error that stopped each. */
  private readonly judgeStops = new Map<string, Error>();
  private readonly judgeCache: RunJudgeCache;
  readonly stats: SchedulerStats = emptySchedulerStats();

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
    this.lanes = new ModelLanes({
      maxConcurrent,
      throttleMs: options.throttleMs ?? 0,
      onDispatch: (inFlight) => {
        if (inFlight > this.stats.peakInFlight) this.stats.peakInFlight = inFlight;
      },
    });
    this.judgeCache = new RunJudgeCache({
      cache: options.cache,
      leases: options.leases,
      cacheMode: options.cacheMode,
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
    const { entry, shared } = this.inFlight.join({
      key,
      judgeName: judge.name,
      start: (signal) => this.fetch({ key, judge, request: { ...request, signal }, meta }),
    });
    try {
      const response = await waitUnlessAborted({ promise: entry.promise, signal: request.signal });
      if (!shared) return response;
      this.stats.sharedCalls += 1;
      recordSaving(this.stats, {
        inputTokens: response.usage?.inputTokens ?? null,
        outputTokens: response.usage?.outputTokens ?? null,
        costUsd: response.costUsd,
      });
      return { ...response, cached: true, shared: true };
    } finally {
      this.inFlight.leave(entry, request.signal);
    }
  }

  /** A request not in flight yet: from the judge cache (under a lease, if any), or asked. */
  private fetch(options: {
    key: string;
    judge: JudgeModel;
    request: JudgeRequest;
    meta: JudgeCallMeta;
  }): Promise<JudgeResponse> {
    const { key, judge, request, meta } = options;
    let priority: number | undefined;
    return this.judgeCache.withLease({
      key,
      signal: request.signal,
      batched: () => this.batcher?.handles(judge) === true,
      holdSlot: async () => {
        // The priority is taken here, before the claim, and kept for the request's attempts.
        priority = meta.priority ?? this.nextPriority++;
        const held = new HeldFirstSlot(this.slotOf(judge.name, priority));
        // Dispatches spaced by throttleMs are spent on judge calls only: a claim that finds
        // the answer cached must not wait for (or use up) one, so with a throttle the claim
        // is made before the slot is taken, as it was before slots came first.
        if ((this.options.throttleMs ?? 0) === 0) await held.take(request.signal);
        return held;
      },
      answer: ({ cache, claim, held }) =>
        this.answer({
          key,
          judge,
          request,
          meta: priority === undefined ? meta : { ...meta, priority },
          cache,
          claim,
          ...(held === undefined ? {} : { slot: held.slot }),
        }),
    });
  }

  /** The slot of a request's attempts to `judgeName`: its lane's, and the gate's if any. */
  private slotOf(judgeName: string, priority: number): AttemptSlot {
    const lane = this.lanes.laneFor(judgeName);
    return laneSlot({ lane, gate: this.options.gate, judgeName, priority });
  }

  private async answer(options: {
    key: string;
    judge: JudgeModel;
    request: JudgeRequest;
    meta: JudgeCallMeta;
    cache: JudgeCache | null;
    /** The lease claim's outcome; `null`: it failed; `undefined`: no leases, read the cache. */
    claim: JudgeCacheClaim | null | undefined;
    /** The slot of a direct call whose first attempt's slot is already held. */
    slot?: AttemptSlot;
  }): Promise<JudgeResponse> {
    const { key, judge, request, meta, cache, claim } = options;
    const mode = this.judgeCache.mode;
    const hit =
      claim === undefined
        ? cache === null
          ? undefined
          : await this.judgeCache.read({ cache, key })
        : claim !== null && "answer" in claim
          ? claim.answer
          : undefined;
    if (hit) {
      this.stats.cacheHits += 1;
      recordSaving(this.stats, hit);
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
      const { slot } = options;
      const direct = () =>
        this.callDirect({ judge, request, meta, ...(slot === undefined ? {} : { slot }) });
      const batcher = this.batcher;
      // A request with images for a judge that cannot see them goes the direct way, which
      // refuses it with a clear error.
      const response =
        batcher?.handles(judge) &&
        (judge.supportsImages === true || (request.images?.length ?? 0) === 0)
          ? await sendBatchedWithinBudget({
              batcher,
              budget: this.options.budget ?? null,
              key,
              judge,
              request,
              direct,
              priority: meta.priority,
            })
          : await direct();
      recordJudgeCall(this.stats, response);
      // Only answers the step accepts are kept: a malformed answer must be asked again next
      // run, not served from the cache for ever.
      if (meta.validate && !meta.validate(response)) return response;
      if (cache !== null) await this.judgeCache.keep({ cache, key, response });
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
  lookUp(options: {
    judge: JudgeModel;
    request: JudgeRequest;
    trial: number;
  }): Promise<JudgeResponse | undefined> {
    return this.judgeCache.lookUp(options);
  }

  /** Whether requests are looked up in a judge cache (the cache is on and there is one). */
  get usesCache(): boolean {
    return this.judgeCache.usesCache;
  }

  /** One request sent straight to its judge: a concurrency slot per attempt, retries. */
  private async callDirect(options: {
    judge: JudgeModel;
    request: JudgeRequest;
    meta: JudgeCallMeta;
    /** The request's slot, its first already held (see `HeldFirstSlot`); default: its lane's. */
    slot?: AttemptSlot;
  }): Promise<JudgeResponse> {
    const { judge, meta } = options;
    const lane = this.lanes.laneFor(judge.name);
    // A retry queues again with the same priority: it is still that case's request.
    const priority = meta.priority ?? this.nextPriority++;
    const slotOfLane = options.slot ?? this.slotOf(judge.name, priority);
    const budget = this.options.budget ?? null;
    let request = options.request;
    let budgeted: BudgetedCall | null = null;
    if (budget !== null) {
      const price = budgetPrice(judge, budget);
      const worst = worstCaseOf({ request, price, factor: 1 });
      budgeted = new BudgetedCall({ budget, worst, price, factor: 1, priority });
      request = { ...request, maxOutputTokens: worst.maxOutputTokens };
    }
    const slot = budgeted === null ? slotOfLane : budgeted.slot(slotOfLane);
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

  /**
   * Stops dispatching: every queued and later request fails with `error`, and the calls in
   * flight are cancelled, unless `abortInFlight` is false (a budget: they were paid for).
   */
  stop(error: Error, options: { abortInFlight?: boolean } = {}): void {
    if (this.stopError) return;
    this.stopError = error;
    this.lanes.rejectWaiting(error);
    if (options.abortInFlight === false) return;
    this.inFlight.abortAll(error);
  }

  /**
   * Stops one judge after a failure no retry or later request can escape: queued and later
   * requests fail with `error`, and calls in flight are cancelled.
   */
  private stopJudge(judgeName: string, error: Error): void {
    if (this.judgeStops.has(judgeName)) return;
    this.judgeStops.set(judgeName, error);
    this.lanes.laneFor(judgeName).rejectWaiting(error);
    this.inFlight.abortJudge(judgeName, error);
  }

  /** Current concurrency limit of a model's lane (for tests and progress). */
  concurrencyOf(judgeName: string): number | null {
    return this.lanes.limitOf(judgeName);
  }
}
