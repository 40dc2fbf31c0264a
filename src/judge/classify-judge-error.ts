import type {
  JudgeCallFailure,
  JudgeCallFailureKind,
} from "../errors/describe-judge-call-failure.ts";

const RETRYABLE_KINDS: ReadonlySet<JudgeCallFailureKind> = new Set([
  "rate-limit",
  "server",
  "unreadable-response",
  "timeout",
  "network",
]);

// What the AI SDK throws, without a status, when a provider's answer is not what it should
// be: a body that is not JSON, JSON of another shape, no choices, no body.
const UNREADABLE_RESPONSE_ERRORS = new Set([
  "AI_JSONParseError",
  "AI_TypeValidationError",
  "AI_InvalidResponseDataError",
  "AI_EmptyResponseBodyError",
]);

// What undici and Node say when a body stops before its end, when no code says it.
const CUT_BODY_MESSAGES = /\bterminated\b|other side closed|socket hang up|premature close/i;

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
  "ERR_STREAM_PREMATURE_CLOSE",
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
 * wait it asked for (`retry-after-ms`, `Retry-After`, or on a 429/503 the rate-limit reset
 * headers of OpenAI and Anthropic), and whether a retry can help (rate limits, 408/409/5xx,
 * timeouts, dropped connections, and answers that came with a 2xx but were cut short or
 * are not the provider's JSON). Pure: `now` reads a `Retry-After` HTTP date.
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
  const headers = field(error, "responseHeaders") ?? field(error, "headers");
  const now = options.now ?? Date.now();
  const facts = {
    status,
    // A provider's rate-limit reset headers come with every answer; they say "later" only on
    // a 429 or a 503.
    retryAfterMs:
      retryAfterFromHeaders(headers, now) ??
      (status === 429 || status === 503 ? rateLimitResetFromHeaders(headers, now) : null),
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
  const chain = causeChain(error);
  const codes = chain.map((item) => field(item, "code")).filter((code) => typeof code === "string");
  const names = chain.map((item) => field(item, "name"));
  const messages = chain.map((item) => String(field(item, "message") ?? ""));
  const networkCode = codes.find((code) => NETWORK_CODES.has(code)) ?? null;

  // The provider answered 2xx, then the body broke off or is not its JSON: nothing was
  // rejected, and the same request asked again is answered (issue 19).
  const unreadable = (): JudgeCallFailure => {
    const cut =
      networkCode ?? (messages.some((text) => CUT_BODY_MESSAGES.test(text)) ? "terminated" : null);
    return {
      ...failure("unreadable-response", cut),
      providerCode: null,
      providerMessage:
        firstString(field(bodyError, "message"), field(body, "message")) ?? chainText(messages),
    };
  };

  if (status !== null) {
    if (status >= 200 && status < 300) return unreadable();
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
    // OpenAI names an unknown model `model_not_found`, whatever the status it answers with.
    if (status === 404 || providerCode === "model_not_found") return failure("not-found");
    if (status === 408 || status === 409 || status >= 500) return failure("server");
    return failure("bad-request");
  }

  if (
    names.includes("TimeoutError") ||
    codes.some((code) => TIMEOUT_CODES.has(code)) ||
    messages.some((message) => /\btimed? ?out\b/i.test(message))
  ) {
    return failure("timeout");
  }
  const dropped = messages.some((message) =>
    /fetch failed|socket hang up|other side closed|network|cannot connect/i.test(message),
  );
  if (networkCode !== null || dropped || field(error, "isRetryable") === true) {
    return failure("network", networkCode);
  }
  if (names.some((name) => typeof name === "string" && UNREADABLE_RESPONSE_ERRORS.has(name))) {
    return unreadable();
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

/** Reads one response header, whatever the case of its name, from `Headers` or a plain object. */
function headerReader(headers: unknown): (name: string) => string | undefined {
  return (name) => {
    if (typeof headers !== "object" || headers === null) return undefined;
    if (typeof (headers as Headers).get === "function") {
      return (headers as Headers).get(name) ?? undefined;
    }
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() === name && typeof value === "string") return value;
    }
    return undefined;
  };
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) from response headers. */
export function retryAfterFromHeaders(headers: unknown, now: number): number | null {
  const header = headerReader(headers);
  const milliseconds = Number.parseFloat(header("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const retryAfter = header("retry-after")?.trim();
  if (retryAfter === undefined || retryAfter === "") return null;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number.parseFloat(retryAfter) * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

// The limits whose reset time providers send: OpenAI `x-ratelimit-reset-<limit>` as a
// duration ("1s", "6m0s", "20ms"), Anthropic `anthropic-ratelimit-<limit>-reset` as an RFC 3339
// time; each with a `…remaining…` header beside it.
const OPENAI_LIMITS = ["requests", "tokens"];
const ANTHROPIC_LIMITS = ["requests", "tokens", "input-tokens", "output-tokens"];

/**
 * How long until the exhausted rate limit resets, from the provider's rate-limit headers: the
 * latest reset among the limits whose `remaining` is 0, or, when none says so, the earliest
 * reset (trying again then is cheap: another 429 says how long again).
 */
function rateLimitResetFromHeaders(headers: unknown, now: number): number | null {
  const header = headerReader(headers);
  const limits: Array<{ resetMs: number; exhausted: boolean }> = [];
  const add = (reset: number | null, remaining: string | undefined) => {
    if (reset === null) return;
    limits.push({ resetMs: reset, exhausted: remaining?.trim() === "0" });
  };
  for (const limit of OPENAI_LIMITS) {
    const reset = header(`x-ratelimit-reset-${limit}`);
    add(
      reset === undefined ? null : parseDuration(reset),
      header(`x-ratelimit-remaining-${limit}`),
    );
  }
  for (const limit of ANTHROPIC_LIMITS) {
    const reset = Date.parse(header(`anthropic-ratelimit-${limit}-reset`) ?? "");
    add(
      Number.isNaN(reset) ? null : Math.max(0, reset - now),
      header(`anthropic-ratelimit-${limit}-remaining`),
    );
  }
  if (limits.length === 0) return null;
  const exhausted = limits.filter((limit) => limit.exhausted);
  return exhausted.length > 0
    ? Math.max(...exhausted.map((limit) => limit.resetMs))
    : Math.min(...limits.map((limit) => limit.resetMs));
}

const DURATION_UNITS_MS: Record<string, number> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 0.000_001,
};

/** Reads a Go-style duration such as `"1s"`, `"6m0s"`, `"20ms"` or `"1h2m3.5s"`; null if it is not one. */
function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  let total = 0;
  let consumed = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) {
    if (match.index !== consumed) return null;
    total += Number.parseFloat(match[1] as string) * (DURATION_UNITS_MS[match[2] as string] ?? 0);
    consumed += match[0].length;
  }
  return consumed === trimmed.length ? total : null;
}

/** The distinct messages of a cause chain, outermost first: `"Invalid JSON response: …"`. */
function chainText(messages: string[]): string {
  const distinct = [...new Set(messages.map((text) => text.trim()).filter((text) => text !== ""))];
  return distinct.slice(0, 2).join(": ");
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
