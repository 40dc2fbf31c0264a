import { setTimeout as delay } from "node:timers/promises";
import { describeCancelledJudgeCall } from "../errors/describe-judge-call-failure.ts";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import {
  isProviderWait,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
} from "./retry-policy.ts";

/** What {@link withRetries} reports before it waits for the next attempt. */
export interface RetryInfo {
  judgeName: string;
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** How long it waits before the next attempt. */
  delayMs: number;
  /**
   * Whether the failed attempt spent the attempt budget: `false` when the provider said how
   * long to wait (a 429 or 503 with `Retry-After` or rate-limit reset headers).
   */
  countsAsAttempt: boolean;
  /** Why the attempt failed. */
  error: JudgeCallError;
}

/** Waits `delayMs`; rejects when `signal` aborts. */
export type Sleep = (options: {
  delayMs: number;
  signal?: AbortSignal | undefined;
}) => Promise<void>;

/** Options of {@link withRetries}. */
export interface WithRetriesOptions<T> {
  /** One attempt. Pass `signal` on: it aborts when the attempt times out or the run is cancelled. */
  run: (signal: AbortSignal) => Promise<T>;
  /** Name of the judge, for messages. */
  judgeName: string;
  /** @default DEFAULT_RETRY_POLICY */
  policy?: Partial<RetryPolicy> | undefined;
  /** Cancels the whole call, waits included. */
  signal?: AbortSignal | undefined;
  /** Called before each wait, e.g. to log or to lower concurrency on 429s. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
  /** @default a timer that `signal` can abort */
  sleep?: Sleep | undefined;
  /** @default Math.random */
  random?: (() => number) | undefined;
  /**
   * The clock that measures the time spent against the policy's `maxElapsedMs`, in ms.
   * @default Date.now
   */
  now?: (() => number) | undefined;
  /**
   * A concurrency slot held for each attempt only (not while waiting to retry): the
   * attempt's time limit starts once the slot is acquired, so queueing never times out.
   */
  slot?: AttemptSlot | undefined;
}

/** A concurrency slot: see {@link WithRetriesOptions.slot}. */
export interface AttemptSlot {
  acquire(signal: AbortSignal | undefined): Promise<void>;
  /** Called after each attempt with its classified failure (`null` on success). */
  release(outcome: { error: JudgeCallError | null }): void;
}

/**
 * Runs `run` with a time limit per attempt and retries retryable failures (rate limits,
 * server errors, timeouts, dropped connections, answers cut short or unreadable after a 2xx). A 429 or 503 that says how long to wait
 * (`Retry-After`, `retry-after-ms`, rate-limit reset headers) is waited out as told, with a
 * little jitter, without spending the attempt budget — but never for less than the policy's
 * backoff for the number of such waits so far, so that "0" is still backed off. Every other
 * failure backs off exponentially and counts towards `maxAttempts`. The policy's
 * `maxElapsedMs` bounds the whole request — attempts, their timeouts and the waits between
 * them (not time queued for a `slot`): a wait after which no time would be left is not
 * waited, and an attempt still running when the budget ends is cut there.
 * Throws a {@link JudgeCallError} when it gives up, or an `EvalError` with code `"ABORTED"`
 * as soon as `signal` aborts.
 * @example
 * const text = await withRetries({
 *   judgeName: judge.name,
 *   run: (signal) => judge.generate({ ...request, signal }),
 * });
 */
export async function withRetries<T>(options: WithRetriesOptions<T>): Promise<T> {
  const policy = resolveRetryPolicy(options.policy);
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const { judgeName, signal } = options;
  // Attempts that spent the attempt budget, and failures that said how long to wait.
  let countedAttempts = 0;
  let providerWaits = 0;
  // Time spent on attempts and waits; time queued for a slot is the run's, not the request's.
  let elapsedMs = 0;
  const attemptLimitMs =
    Number.isFinite(policy.timeoutMs) && policy.timeoutMs > 0 ? policy.timeoutMs : Infinity;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw abortedError({ judgeName, signal });
    let error: JudgeCallError;
    const slot = options.slot;
    let holdsSlot = false;
    let startedAt: number | null = null;
    const attemptState = { cutByBudget: false };
    try {
      if (slot) {
        await slot.acquire(signal);
        holdsSlot = true;
      }
      if (signal?.aborted) throw abortedError({ judgeName, signal });
      startedAt = now();
      // An attempt never runs past the request's budget: it is cut where the budget ends.
      const budgetLeftMs = policy.maxElapsedMs - elapsedMs;
      const value = await runAttempt({
        run: options.run,
        signal,
        timeoutMs: Math.min(attemptLimitMs, budgetLeftMs),
        budgetLimits: budgetLeftMs < attemptLimitMs,
        state: attemptState,
        judgeName,
      });
      if (holdsSlot) slot?.release({ error: null });
      return value;
    } catch (caught) {
      if (startedAt !== null) elapsedMs += Math.max(0, now() - startedAt);
      // Cut at the bound: the budget is spent, whatever an injected clock says.
      if (attemptState.cutByBudget) elapsedMs = Math.max(elapsedMs, policy.maxElapsedMs);
      // The slot is released only once the failure is classified, so that an exhausted
      // quota stops the next queued request before it is dispatched.
      const classified =
        signal?.aborted || (caught instanceof EvalError && !(caught instanceof JudgeCallError))
          ? null
          : await classifyFailure({ error: caught, judgeName });
      if (holdsSlot) slot?.release({ error: classified });
      if (signal?.aborted) throw abortedError({ judgeName, signal });
      // Errors verdict raised itself (a missing image file, a bad option) are not call failures.
      if (classified === null) throw caught;
      error = classified;
    }
    if (!error.retryable) throw error;
    const budget = { attempts: attempt, elapsedMs, maxElapsedMs: policy.maxElapsedMs };
    if (elapsedMs >= policy.maxElapsedMs) {
      throw error.afterRetryBudget({
        ...budget,
        providerWaits,
        nextWaitMs: null,
        lastAttemptCut: attemptState.cutByBudget,
      });
    }
    const countsAsAttempt = !isProviderWait(error);
    if (countsAsAttempt) {
      countedAttempts += 1;
      if (countedAttempts >= policy.maxAttempts) throw error.afterAttempts(attempt);
    }
    if (error.retryAfterMs !== null) providerWaits += 1;
    const delayMs = retryDelayMs({
      attempt: countedAttempts,
      error,
      policy,
      random: options.random,
      providerWaits,
    });
    // A wait that ends where the budget does leaves no time for the attempt after it.
    if (elapsedMs + delayMs >= policy.maxElapsedMs) {
      throw error.afterRetryBudget({
        ...budget,
        providerWaits,
        nextWaitMs: delayMs,
        providerAsked: error.retryAfterMs !== null,
      });
    }
    options.onRetry?.({ judgeName, attempt, delayMs, error, countsAsAttempt });
    const sleptFrom = now();
    try {
      await sleep({ delayMs, signal });
    } catch (sleepError) {
      if (signal?.aborted) throw abortedError({ judgeName, signal });
      throw sleepError;
    }
    // At least the wait asked for: an injected sleep that returns at once still spends it.
    elapsedMs += Math.max(delayMs, now() - sleptFrom);
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Waits `delayMs` on a timer that `signal` can abort: what waits when no `sleep` is given. */
export const defaultSleep: Sleep = async ({ delayMs, signal }) => {
  await delay(delayMs, undefined, signal === undefined ? {} : { signal });
};

async function runAttempt<T>(options: {
  run: (signal: AbortSignal) => Promise<T>;
  signal: AbortSignal | undefined;
  /** The attempt's time limit: `Infinity` for none. */
  timeoutMs: number;
  /** Whether that limit is where the request's `maxElapsedMs` ends, not `timeoutMs`. */
  budgetLimits: boolean;
  /** Set when the attempt was cut where the request's budget ends. */
  state: { cutByBudget: boolean };
  judgeName: string;
}): Promise<T> {
  // One controller and one timer cleared when the attempt ends: AbortSignal.timeout would
  // leave a live timer per call for the whole timeout, and AbortSignal.any would pile
  // dependents onto the run's long-lived signal — both add up over thousands of calls.
  const controller = new AbortController();
  const parent = options.signal;
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  let timedOut = false;
  // Past a timer's largest delay (about 24.8 days) Node would fire it at once: no limit then.
  const timer =
    options.timeoutMs <= MAX_TIMER_MS
      ? setTimeout(
          () => {
            timedOut = true;
            controller.abort(new DOMException("The judge call timed out.", "TimeoutError"));
          },
          Math.max(0, options.timeoutMs),
        )
      : undefined;
  const attemptSignal = controller.signal;
  let onAbort = () => {};
  // Racing the signal makes a judge that ignores it time out all the same.
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(attemptSignal.reason);
    // Aborted before we listened (the caller's signal was already aborted): reject now.
    if (attemptSignal.aborted) onAbort();
    else attemptSignal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([Promise.resolve().then(() => options.run(attemptSignal)), aborted]);
  } catch (error) {
    if (timedOut && !parent?.aborted) {
      options.state.cutByBudget = options.budgetLimits;
      throw JudgeCallError.fromFailure({
        judgeName: options.judgeName,
        failure: {
          kind: "timeout",
          status: null,
          retryable: true,
          retryAfterMs: null,
          providerCode: null,
          providerMessage: "",
          networkCode: null,
          url: null,
        },
        timeoutMs: Math.round(options.timeoutMs),
        cutByBudget: options.budgetLimits,
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onParentAbort);
    attemptSignal.removeEventListener("abort", onAbort);
  }
}

/**
 * A failed attempt as a {@link JudgeCallError}. The classifier (provider errors, HTTP
 * statuses, similar model names) is loaded on the first failure: a run whose judge never
 * fails never loads it.
 */
async function classifyFailure(options: {
  error: unknown;
  judgeName: string;
}): Promise<JudgeCallError> {
  if (options.error instanceof JudgeCallError) return options.error;
  const { toJudgeCallError } = await import("./to-judge-call-error.ts");
  return toJudgeCallError(options);
}

function abortedError(options: { judgeName: string; signal: AbortSignal }): EvalError {
  return new EvalError("ABORTED", describeCancelledJudgeCall(options.judgeName), {
    cause: options.signal.reason,
  });
}
