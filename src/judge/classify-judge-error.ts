import type {
  JudgeCallFailure,
  JudgeCallFailureKind,
} from "../errors/describe-judge-call-failure.ts";

const RETRYABLE_KINDS: ReadonlySet<JudgeCallFailureKind> = new Set([
  "rate-limit",
  "server",
  "timeout",
  "network",
]);

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

/**
 * Reads anything a judge may throw — AI SDK `APICallError` (unwrapped from a `RetryError`),
 * openai-node errors, fetch network errors, `AbortError`/`TimeoutError` — as the facts of a
 * {@link JudgeCallFailure}: its kind, HTTP status, the provider's code and message, the
 * `Retry-After` it asked for, and whether a retry can help (rate limits, 408/409/5xx,
 * timeouts and dropped connections only). Pure: `now` reads a `Retry-After` HTTP date.
 * @example
 * const { kind, retryable, retryAfterMs } = classifyJudgeError(caught);
 */
export function classifyJudgeError(
  thrown: unknown,
  options: { now?: number | undefined } = {},
): JudgeCallFailure {
  const error = unwrapRetryError(thrown);
  const status = numberField(error, "statusCode") ?? numberField(error, "status");
  const body = errorBody(error);
  const bodyError = field(body, "error");
  // Without a status, `code` is a Node error code (ECONNRESET), not the provider's.
  const providerCode =
    status === null
      ? null
      : (firstString(
          field(bodyError, "code"),
          field(bodyError, "type"),
          field(bodyError, "status"),
          field(body, "code"),
          field(body, "type"),
          field(error, "code"),
          field(error, "type"),
        ) ?? null);
  const facts = {
    status,
    retryAfterMs: retryAfterFromHeaders(
      field(error, "responseHeaders") ?? field(error, "headers"),
      options.now ?? Date.now(),
    ),
    providerCode,
    providerMessage:
      firstString(field(bodyError, "message"), field(body, "message"), field(error, "message")) ??
      String(error),
    url: firstString(field(error, "url")) ?? null,
  };
  const failure = (kind: JudgeCallFailureKind, networkCode: string | null = null) => ({
    ...facts,
    kind,
    retryable: RETRYABLE_KINDS.has(kind),
    networkCode,
  });

  if (status !== null) {
    if (status === 429) {
      const quota =
        providerCode === "insufficient_quota" ||
        field(bodyError, "type") === "insufficient_quota" ||
        field(bodyError, "code") === "insufficient_quota";
      return quota
        ? { ...failure("quota"), providerCode: "insufficient_quota" }
        : failure("rate-limit");
    }
    if (status === 401 || status === 403) return failure("auth");
    if (status === 404) return failure("not-found");
    if (status === 408 || status === 409 || status >= 500) return failure("server");
    return failure("bad-request");
  }

  const chain = causeChain(error);
  const codes = chain.map((item) => field(item, "code")).filter((code) => typeof code === "string");
  const names = chain.map((item) => field(item, "name"));
  const messages = chain.map((item) => String(field(item, "message") ?? ""));
  if (
    names.includes("TimeoutError") ||
    codes.some((code) => TIMEOUT_CODES.has(code)) ||
    messages.some((message) => /\btimed? ?out\b/i.test(message))
  ) {
    return failure("timeout");
  }
  const networkCode = codes.find((code) => NETWORK_CODES.has(code)) ?? null;
  const dropped = messages.some((message) =>
    /fetch failed|socket hang up|other side closed|network|cannot connect/i.test(message),
  );
  if (networkCode !== null || dropped || field(error, "isRetryable") === true) {
    return failure("network", networkCode);
  }
  if (names.includes("AbortError")) return failure("aborted");
  return failure("unknown");
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
function retryAfterFromHeaders(headers: unknown, now: number): number | null {
  const header = (name: string): string | undefined => {
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
  return Number.isNaN(date) ? null : Math.max(0, date - now);
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
