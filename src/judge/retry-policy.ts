import type { JudgeCallError } from "../errors/judge-call-error.ts";

/** How judge calls are retried. */
export interface RetryPolicy {
  /**
   * Attempts in total, the first one included.
   * @default 6
   */
  maxAttempts: number;
  /**
   * Delay before the first retry; it doubles on each further retry.
   * @default 500
   */
  initialDelayMs: number;
  /**
   * Longest backoff delay. A provider's `Retry-After` may ask for longer (up to 5 minutes).
   * @default 30000
   */
  maxDelayMs: number;
  /**
   * Time limit of one attempt; `0` or `Infinity` for none.
   * @default 120000
   */
  timeoutMs: number;
}

/** The retry policy used when none is given. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: 120_000,
});

/** Longest `Retry-After` honoured: a provider asking for more is waited on for this long. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Options of {@link retryDelayMs}. */
export interface RetryDelayOptions {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  /** Its error: a `retryAfterMs` on it wins over the backoff. */
  error?: JudgeCallError | null | undefined;
  /** @default DEFAULT_RETRY_POLICY */
  policy?: Partial<RetryPolicy> | undefined;
  /**
   * Source of randomness in [0, 1) for the jitter.
   * @default Math.random
   */
  random?: (() => number) | undefined;
}

/**
 * How long to wait before the next attempt: the provider's `Retry-After` when it gave one
 * (up to 5 minutes), else `initialDelayMs * 2^(attempt-1)` capped at `maxDelayMs`, with equal
 * jitter (between half and all of it) so parallel calls do not retry in lockstep.
 */
export function retryDelayMs(options: RetryDelayOptions): number {
  const retryAfterMs = options.error?.retryAfterMs;
  if (retryAfterMs !== null && retryAfterMs !== undefined) {
    return Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS);
  }
  const policy = resolveRetryPolicy(options.policy);
  const exponent = Math.max(0, options.attempt - 1);
  const base = Math.min(policy.initialDelayMs * 2 ** exponent, policy.maxDelayMs);
  const random = options.random ?? Math.random;
  return Math.round(base / 2 + (random() * base) / 2);
}

/** Fills in the defaults of a partial policy. */
export function resolveRetryPolicy(policy: Partial<RetryPolicy> | undefined): RetryPolicy {
  const resolved = { ...DEFAULT_RETRY_POLICY };
  for (const key of Object.keys(resolved) as Array<keyof RetryPolicy>) {
    const value = policy?.[key];
    if (value !== undefined) resolved[key] = value;
  }
  return resolved;
}
