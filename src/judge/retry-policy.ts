import { ConfigError } from "../errors/config-error.ts";
import type { JudgeCallError } from "../errors/judge-call-error.ts";

/** How judge calls are retried. */
export interface RetryPolicy {
  /**
   * Attempts in total, the first one included, counting only the attempts that failed without
   * the provider saying how long to wait (5xx, dropped connections, timeouts, answers cut
   * short or unreadable after a 2xx, a 429 with no hint). A 429 or 503 with `Retry-After`, `retry-after-ms` or rate-limit reset headers is
   * waited out without spending an attempt (never for less than the backoff for the number
   * of such waits so far): `maxElapsedMs` bounds those waits instead.
   * @default 6
   */
  maxAttempts: number;
  /**
   * Delay before the first retry; it doubles on each further retry.
   * @default 500
   */
  initialDelayMs: number;
  /**
   * Longest backoff delay. A provider's `Retry-After` may ask for longer.
   * @default 30000
   */
  maxDelayMs: number;
  /**
   * Time limit of one attempt; `0` or `Infinity` for none. `maxElapsedMs` may cut an attempt
   * sooner.
   * @default 120000
   */
  timeoutMs: number;
  /**
   * Wall time one request may spend in all: its attempts, their timeouts and the waits between
   * them together (time queued for a concurrency slot not counted). A wait — the provider's or
   * the backoff — after which no time would be left is not waited, and an attempt still
   * unanswered when the time is up is cut there: the call fails with a `JudgeCallError` that
   * says so. A judge that never answers therefore fails after this long at most. `Infinity`
   * sets no bound (then `timeoutMs` × `maxAttempts`, plus the waits, bounds a hung judge).
   * @default 600000 (10 minutes)
   */
  maxElapsedMs: number;
}

/** The retry policy used when none is given. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: 120_000,
  maxElapsedMs: 600_000,
});

/**
 * The largest share of a provider's wait added at random on top of it, so that calls told to
 * wait the same time do not all come back at the same instant.
 */
export const PROVIDER_WAIT_JITTER = 0.2;

/** Options of {@link retryDelayMs}. */
export interface RetryDelayOptions {
  /** The attempts failed so far that spend the attempt budget, 1-based: sets the backoff. */
  attempt: number;
  /** Its error: a `retryAfterMs` on it wins over the backoff (see `providerWaits`). */
  error?: JudgeCallError | null | undefined;
  /**
   * How many times the provider has said how long to wait so far, this time included: its
   * wait is never shorter than the backoff for that many waits, so that a provider that says
   * "0" (`Retry-After: 0`, a past date, `x-ratelimit-reset-requests: 0s`) is still backed off.
   * @default 1
   */
  providerWaits?: number | undefined;
  /** @default DEFAULT_RETRY_POLICY */
  policy?: Partial<RetryPolicy> | undefined;
  /**
   * Source of randomness in [0, 1) for the jitter.
   * @default Math.random
   */
  random?: (() => number) | undefined;
}

/** A provider-told wait below this is treated as no wait at all (and backed off instead). */
export const MIN_PROVIDER_WAIT_MS = 10;

/**
 * How long to wait before the next attempt. Without a hint from the provider:
 * `initialDelayMs * 2^(attempt-1)` capped at `maxDelayMs`, with equal jitter (between half and
 * all of it) so parallel calls do not retry in lockstep. When the provider said how long
 * (`Retry-After` or rate-limit reset): its wait plus up to 20% more at random. A wait of less
 * than {@link MIN_PROVIDER_WAIT_MS} (`Retry-After: 0`, a date in the past, a reset of `0s`) says
 * nothing usable: it is replaced by the backoff for the number of such waits so far
 * (`providerWaits`), or the provider would be asked again at once for as long as
 * `maxElapsedMs` lasts.
 */
export function retryDelayMs(options: RetryDelayOptions): number {
  const random = options.random ?? Math.random;
  const policy = resolveRetryPolicy(options.policy);
  const jitter = random();
  const backoff = (waits: number) => {
    const exponent = Math.max(0, waits - 1);
    const base = Math.min(policy.initialDelayMs * 2 ** exponent, policy.maxDelayMs);
    return base / 2 + (jitter * base) / 2;
  };
  const retryAfterMs = options.error?.retryAfterMs;
  if (retryAfterMs !== null && retryAfterMs !== undefined) {
    if (retryAfterMs < MIN_PROVIDER_WAIT_MS) {
      return Math.round(backoff(Math.max(1, options.providerWaits ?? 1)));
    }
    return Math.round(retryAfterMs + jitter * retryAfterMs * PROVIDER_WAIT_JITTER);
  }
  return Math.round(backoff(options.attempt));
}

/** Whether a failure is the provider saying "later, after this long" rather than failing. */
export function isProviderWait(error: JudgeCallError): boolean {
  return (
    (error.status === 429 || error.status === 503) &&
    error.retryAfterMs !== null &&
    !error.quotaExhausted
  );
}

const LIMITS: Record<keyof RetryPolicy, { min: number; integer: boolean; what: string }> = {
  maxAttempts: { min: 1, integer: true, what: "a whole number of at least 1" },
  initialDelayMs: { min: 0, integer: false, what: "0 or more milliseconds" },
  maxDelayMs: { min: 0, integer: false, what: "0 or more milliseconds" },
  timeoutMs: { min: 0, integer: false, what: "0 or more milliseconds (0 or Infinity: none)" },
  maxElapsedMs: { min: 1, integer: false, what: "at least 1 millisecond (Infinity: no limit)" },
};

/**
 * Fills in the defaults of a partial policy; throws a `ConfigError` naming the field for a
 * value that is not a usable number.
 */
export function resolveRetryPolicy(policy: Partial<RetryPolicy> | undefined): RetryPolicy {
  const resolved = { ...DEFAULT_RETRY_POLICY };
  for (const key of Object.keys(resolved) as Array<keyof RetryPolicy>) {
    const value = policy?.[key];
    if (value === undefined) continue;
    const limit = LIMITS[key];
    const usable =
      typeof value === "number" &&
      !Number.isNaN(value) &&
      value >= limit.min &&
      (!limit.integer || Number.isInteger(value));
    if (!usable) {
      throw new ConfigError(
        `retry.${key} must be ${limit.what}; got ${typeof value === "number" ? value : JSON.stringify(value)}. ` +
          `Fix it in the retry option, or leave it out for the default (${DEFAULT_RETRY_POLICY[key]}).`,
      );
    }
    resolved[key] = value;
  }
  return resolved;
}
