import { setTimeout as delay } from "node:timers/promises";
import { redactSecretText } from "../config/redact-secrets.ts";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { providerOfJudgeName } from "./providers.ts";

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

/** Options of {@link toJudgeCallError}. */
export interface ToJudgeCallErrorOptions {
  /** Whatever the judge threw. */
  error: unknown;
  /** Name of the judge, for the message and to name the API-key variable to check. */
  judgeName: string;
  /**
   * Current time in ms, to read a `Retry-After` given as an HTTP date.
   * @default Date.now()
   */
  now?: number;
}

/**
 * Classifies anything a judge may throw (AI SDK `APICallError`/`RetryError`, openai-node
 * errors, fetch network errors, timeouts) as a {@link JudgeCallError} that says whether a
 * retry can help and what to do. A `JudgeCallError` is returned as is.
 * @example
 * const error = toJudgeCallError({ error: caught, judgeName: "openai:gpt-4.1" });
 * if (error.retryable) scheduleRetry(error.retryAfterMs);
 */
export function toJudgeCallError(options: ToJudgeCallErrorOptions): JudgeCallError {
  if (options.error instanceof JudgeCallError) return options.error;
  return new JudgeCallError({
    ...classify({
      error: options.error,
      judgeName: options.judgeName,
      now: options.now ?? Date.now(),
    }),
    cause: options.error,
  });
}

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

/** What {@link withRetries} reports before it waits for the next attempt. */
export interface RetryInfo {
  judgeName: string;
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** How long it waits before the next attempt. */
  delayMs: number;
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
 * server errors, timeouts, dropped connections) with backoff that honours `Retry-After`.
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
  const { judgeName, signal } = options;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw abortedError({ judgeName, signal });
    let error: JudgeCallError;
    const slot = options.slot;
    let holdsSlot = false;
    try {
      if (slot) {
        await slot.acquire(signal);
        holdsSlot = true;
      }
      if (signal?.aborted) throw abortedError({ judgeName, signal });
      const value = await runAttempt({
        run: options.run,
        signal,
        timeoutMs: policy.timeoutMs,
        judgeName,
      });
      if (holdsSlot) slot?.release({ error: null });
      return value;
    } catch (caught) {
      // The slot is released only once the failure is classified, so that an exhausted
      // quota stops the next queued request before it is dispatched.
      const classified =
        signal?.aborted || (caught instanceof EvalError && !(caught instanceof JudgeCallError))
          ? null
          : toJudgeCallError({ error: caught, judgeName });
      if (holdsSlot) slot?.release({ error: classified });
      if (signal?.aborted) throw abortedError({ judgeName, signal });
      // Errors verdict raised itself (a missing image file, a bad option) are not call failures.
      if (classified === null) throw caught;
      error = classified;
    }
    if (!error.retryable) throw error;
    if (attempt >= policy.maxAttempts) throw gaveUp({ error, attempts: attempt });
    const delayMs = retryDelayMs({ attempt, error, policy, random: options.random });
    options.onRetry?.({ judgeName, attempt, delayMs, error });
    try {
      await sleep({ delayMs, signal });
    } catch (sleepError) {
      if (signal?.aborted) throw abortedError({ judgeName, signal });
      throw sleepError;
    }
  }
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

const defaultSleep: Sleep = async ({ delayMs, signal }) => {
  await delay(delayMs, undefined, signal === undefined ? {} : { signal });
};

async function runAttempt<T>(options: {
  run: (signal: AbortSignal) => Promise<T>;
  signal: AbortSignal | undefined;
  timeoutMs: number;
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
  const timer =
    Number.isFinite(options.timeoutMs) && options.timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException("The judge call timed out.", "TimeoutError"));
        }, options.timeoutMs)
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
      throw new JudgeCallError({
        message:
          `Judge "${options.judgeName}" timed out: no answer within ${options.timeoutMs} ms ` +
          `(no HTTP status). If the judge is just slow, raise the retry timeoutMs.`,
        status: null,
        retryable: true,
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

function abortedError(options: { judgeName: string; signal: AbortSignal }): EvalError {
  return new EvalError(
    "ABORTED",
    `Judge "${options.judgeName}": the call was cancelled (the run's signal aborted), so no answer was waited for.`,
    { cause: options.signal.reason },
  );
}

function gaveUp(options: { error: JudgeCallError; attempts: number }): JudgeCallError {
  const { error, attempts } = options;
  return new JudgeCallError({
    message: `${error.message} Gave up after ${attempts} ${attempts === 1 ? "attempt" : "attempts"}.`,
    status: error.status,
    retryable: error.retryable,
    providerCode: error.providerCode,
    retryAfterMs: error.retryAfterMs,
    cause: error.cause,
  });
}

// ---------------------------------------------------------------------------------------------
// Classification of provider errors

type Classification = {
  message: string;
  status: number | null;
  retryable: boolean;
  providerCode: string | null;
  retryAfterMs: number | null;
};

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

function classify(options: { error: unknown; judgeName: string; now: number }): Classification {
  const error = unwrapRetryError(options.error);
  const judge = `Judge "${options.judgeName}"`;
  const status = numberField(error, "statusCode") ?? numberField(error, "status");
  const body = errorBody(error);
  // Without a status, `code` is a Node error code (ECONNRESET), not the provider's.
  const providerCode =
    status === null
      ? null
      : (firstString(
          field(field(body, "error"), "code"),
          field(field(body, "error"), "type"),
          field(field(body, "error"), "status"),
          field(body, "code"),
          field(body, "type"),
          field(error, "code"),
          field(error, "type"),
        ) ?? null);
  const providerMessage = cleanMessage(
    firstString(
      field(field(body, "error"), "message"),
      field(body, "message"),
      field(error, "message"),
    ) ?? String(error),
  );
  const retryAfterMs = retryAfterFromHeaders({
    headers: field(error, "responseHeaders") ?? field(error, "headers"),
    now: options.now,
  });
  const result = (message: string, retryable: boolean): Classification => ({
    message,
    status,
    retryable,
    providerCode,
    retryAfterMs,
  });

  if (status !== null) {
    const said = providerMessage === "" ? "" : `: ${providerMessage}`;
    if (status === 429) {
      const quota =
        providerCode === "insufficient_quota" ||
        field(field(body, "error"), "type") === "insufficient_quota" ||
        field(field(body, "error"), "code") === "insufficient_quota";
      if (quota) {
        return {
          ...result(
            `${judge}: the provider's quota or credit is exhausted (HTTP 429 insufficient_quota)${said}. ` +
              `Add credit or raise the spending limit on the provider's billing page ` +
              `(OpenAI: https://platform.openai.com/settings/organization/billing); no retry will help.`,
            false,
          ),
          providerCode: "insufficient_quota",
        };
      }
      return result(
        `${judge} is rate limited (HTTP 429)${said}. If this persists, lower maxConcurrent or ` +
          `raise the rate limit of your account.`,
        true,
      );
    }
    if (status === 401 || status === 403) {
      const variable = providerOfJudgeName(options.judgeName)?.apiKeyVariable ?? undefined;
      const check =
        variable === undefined
          ? "Check the API key this judge uses"
          : `Check ${variable}: set it (in the environment or a .env file) to a valid key for this provider`;
      const what =
        status === 401
          ? "the API key was rejected (HTTP 401)"
          : "access was denied (HTTP 403); the key may lack access to this model or project";
      return result(`${judge}: ${what}${said}. ${check}.`, false);
    }
    if (status === 404) {
      return result(
        `${judge}: model not found (HTTP 404)${said}. Check the model name (for Azure, the ` +
          `deployment name) and that your account has access to it.`,
        false,
      );
    }
    if (status === 408 || status === 409 || status >= 500) {
      return result(
        `${judge}: the provider failed to answer (HTTP ${status})${said}. This is usually ` +
          `temporary: try again later.`,
        true,
      );
    }
    return result(
      `${judge}: the provider rejected the request (HTTP ${status})${said}. Retrying will not ` +
        `help: check the model name and settings, or use another model.`,
      false,
    );
  }

  const chain = causeChain(error);
  const codes = chain.map((item) => field(item, "code")).filter((code) => typeof code === "string");
  const names = chain.map((item) => field(item, "name"));
  const messages = chain.map((item) => String(field(item, "message") ?? ""));
  const url = firstString(field(error, "url"));
  const where = url === undefined ? "" : ` to ${url}`;
  if (
    names.includes("TimeoutError") ||
    codes.some((code) => TIMEOUT_CODES.has(code)) ||
    messages.some((message) => /\btimed? ?out\b/i.test(message))
  ) {
    return result(
      `${judge} timed out (no HTTP status)${where}: ${providerMessage}. If the judge is just ` +
        `slow, raise the retry timeoutMs.`,
      true,
    );
  }
  const networkCode = codes.find((code) => NETWORK_CODES.has(code));
  const dropped = messages.some((message) =>
    /fetch failed|socket hang up|other side closed|network|cannot connect/i.test(message),
  );
  if (networkCode !== undefined || dropped || field(error, "isRetryable") === true) {
    return result(
      `${judge}: the connection failed (${networkCode === undefined ? "" : `${networkCode}, `}` +
        `no HTTP status)${where}: ${providerMessage}. Check the network, proxy and base URL ` +
        `(is the server running?).`,
      true,
    );
  }
  if (names.includes("AbortError")) {
    return result(`${judge}: the call was aborted (no HTTP status): ${providerMessage}.`, false);
  }
  return result(
    `${judge} failed (no HTTP status): ${providerMessage}. This is not a known transient ` +
      `error, so it is not retried: see the cause for details.`,
    false,
  );
}

function unwrapRetryError(error: unknown): unknown {
  let current = error;
  // AI SDK RetryError: the last attempt's error says what went wrong.
  for (let depth = 0; depth < 5; depth++) {
    const isRetryError =
      field(current, "name") === "AI_RetryError" ||
      field(current, "reason") === "maxRetriesExceeded";
    const lastError = field(current, "lastError");
    if (!isRetryError || lastError === undefined) return current;
    current = lastError;
  }
  return current;
}

function errorBody(error: unknown): unknown {
  const data = field(error, "data");
  if (data !== undefined && data !== null) return data;
  const responseBody = field(error, "responseBody");
  if (typeof responseBody === "string") {
    try {
      return JSON.parse(responseBody);
    } catch {
      return undefined;
    }
  }
  // openai-node puts the body's `error` object on `error.error`.
  const nested = field(error, "error");
  if (typeof nested === "object" && nested !== null) return { error: nested };
  return undefined;
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) from response headers. */
function retryAfterFromHeaders(options: { headers: unknown; now: number }): number | null {
  const header = (name: string): string | undefined => {
    const headers = options.headers;
    if (typeof headers !== "object" || headers === null) return undefined;
    if (typeof (headers as Headers).get === "function") {
      return (headers as Headers).get(name) ?? undefined;
    }
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() === name && typeof value === "string") return value;
    }
    return undefined;
  };
  const milliseconds = Number.parseFloat(header("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const retryAfter = header("retry-after")?.trim();
  if (retryAfter === undefined || retryAfter === "") return null;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number.parseFloat(retryAfter) * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : Math.max(0, date - options.now);
}

/** Provider text, shortened, with anything that looks like an API key masked. */
function cleanMessage(message: string): string {
  const masked = redactSecretText(message)
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.\s]+$/, "");
  return masked.length > 300 ? `${masked.slice(0, 300)}…` : masked;
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < 6) {
    chain.push(current);
    current = field(current, "cause");
  }
  return chain;
}

function field(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function numberField(value: unknown, key: string): number | null {
  const found = field(value, key);
  return typeof found === "number" && Number.isInteger(found) && found >= 100 ? found : null;
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === "string" && value !== "");
}
