import { RetryError } from "ai";
import { describe, expect, it } from "vitest";
import type { JudgeCallFailure } from "../errors/describe-judge-call-failure.ts";
import { classifyJudgeError } from "./classify-judge-error.ts";
import { apiError } from "./judge-error-fixtures.ts";

const now = Date.parse("2025-01-01T00:00:00Z");

/** What undici throws when the body of an answer stops before its end. */
const cutBody = (code: string) =>
  new TypeError("terminated", {
    cause: Object.assign(new Error("other side closed"), { name: "SocketError", code }),
  });

const fetchFailure = (code: string) =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(`connect ${code}`), { code }) });

const cases: Array<[string, unknown, Partial<JudgeCallFailure>]> = [
  [
    "a 429 with Retry-After in seconds",
    apiError({ status: 429, headers: { "retry-after": "2" } }),
    { kind: "rate-limit", status: 429, retryable: true, retryAfterMs: 2000 },
  ],
  [
    "a 429 with retry-after-ms, which wins over retry-after",
    apiError({ status: 429, headers: { "retry-after-ms": "250", "retry-after": "9" } }),
    { kind: "rate-limit", retryAfterMs: 250 },
  ],
  [
    "a 429 without Retry-After",
    apiError({ status: 429 }),
    { kind: "rate-limit", retryable: true, retryAfterMs: null },
  ],
  [
    "a 429 whose body says insufficient_quota",
    apiError({
      status: 429,
      body: { error: { message: "You exceeded your current quota", code: "insufficient_quota" } },
    }),
    {
      kind: "quota",
      status: 429,
      retryable: false,
      providerCode: "insufficient_quota",
      providerMessage: "You exceeded your current quota",
    },
  ],
  [
    "a 429 whose body type alone says insufficient_quota",
    apiError({ status: 429, body: { error: { type: "insufficient_quota", code: "billing" } } }),
    { kind: "quota", retryable: false, providerCode: "insufficient_quota" },
  ],
  [
    "a 401 with the provider's code",
    apiError({ status: 401, body: { error: { message: "Bad key", code: "invalid_api_key" } } }),
    { kind: "auth", status: 401, retryable: false, providerCode: "invalid_api_key" },
  ],
  ["a 403", apiError({ status: 403 }), { kind: "auth", status: 403, retryable: false }],
  [
    "a 404",
    apiError({ status: 404, message: "The model `gpt-9` does not exist" }),
    {
      kind: "not-found",
      retryable: false,
      providerMessage: "The model `gpt-9` does not exist",
    },
  ],
  ["a 400", apiError({ status: 400 }), { kind: "bad-request", status: 400, retryable: false }],
  ["a 422", apiError({ status: 422 }), { kind: "bad-request", status: 422, retryable: false }],
  ["a 408", apiError({ status: 408 }), { kind: "server", status: 408, retryable: true }],
  ["a 409", apiError({ status: 409 }), { kind: "server", status: 409, retryable: true }],
  ["a 500", apiError({ status: 500 }), { kind: "server", status: 500, retryable: true }],
  [
    "a 529 with Anthropic's overloaded_error",
    apiError({
      status: 529,
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    }),
    { kind: "server", retryable: true, providerCode: "overloaded_error" },
  ],
  [
    "an APICallError-like object with a Retry-After HTTP date",
    {
      statusCode: 503,
      responseHeaders: { "Retry-After": "Wed, 01 Jan 2025 00:00:30 GMT" },
      url: "https://api.example.com/v1/chat",
    },
    { kind: "server", status: 503, retryAfterMs: 30_000, url: "https://api.example.com/v1/chat" },
  ],
  [
    "a 429 with OpenAI's reset headers: the exhausted limit's reset (6m0s), not the other's",
    apiError({
      status: 429,
      headers: {
        "x-ratelimit-remaining-requests": "499",
        "x-ratelimit-reset-requests": "120ms",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-tokens": "6m0s",
      },
    }),
    { kind: "rate-limit", retryable: true, retryAfterMs: 360_000 },
  ],
  [
    "a 429 with OpenAI's reset headers and no limit at 0: the earliest reset",
    apiError({
      status: 429,
      headers: { "x-ratelimit-reset-requests": "1h2m3.5s", "x-ratelimit-reset-tokens": "20ms" },
    }),
    { kind: "rate-limit", retryAfterMs: 20 },
  ],
  [
    "a 429 with a Go duration in seconds and a fraction",
    apiError({ status: 429, headers: { "x-ratelimit-reset-requests": "1.5s" } }),
    { retryAfterMs: 1500 },
  ],
  [
    "a 429 with Anthropic's RFC 3339 reset headers: the exhausted limit's reset",
    apiError({
      status: 429,
      headers: {
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "2025-01-01T00:00:12Z",
        "anthropic-ratelimit-tokens-remaining": "90000",
        "anthropic-ratelimit-tokens-reset": "2025-01-01T00:00:01Z",
      },
    }),
    { kind: "rate-limit", retryAfterMs: 12_000 },
  ],
  [
    "a 429 whose Retry-After wins over the reset headers",
    apiError({
      status: 429,
      headers: { "retry-after": "3", "x-ratelimit-reset-requests": "6m0s" },
    }),
    { retryAfterMs: 3000 },
  ],
  [
    "a 503 with OpenAI's reset headers",
    apiError({ status: 503, headers: { "x-ratelimit-reset-requests": "2s" } }),
    { kind: "server", retryable: true, retryAfterMs: 2000 },
  ],
  [
    "a 500 with reset headers, which every answer carries: no wait read from them",
    apiError({ status: 500, headers: { "x-ratelimit-reset-requests": "2s" } }),
    { kind: "server", retryAfterMs: null },
  ],
  [
    "a 429 with reset headers that are not durations or times: no wait",
    apiError({
      status: 429,
      headers: {
        "x-ratelimit-reset-requests": "soon",
        "x-ratelimit-reset-tokens": "5x",
        "anthropic-ratelimit-requests-reset": "tomorrow",
      },
    }),
    { kind: "rate-limit", retryAfterMs: null },
  ],
  [
    "an APICallError-like object with parsed data",
    { statusCode: 429, data: { error: { code: "rate_limit_exceeded", message: "Slow down" } } },
    { kind: "rate-limit", providerCode: "rate_limit_exceeded", providerMessage: "Slow down" },
  ],
  [
    "a response body that is not JSON",
    { statusCode: 502, responseBody: "<html>Bad gateway</html>", message: "Bad Gateway" },
    { kind: "server", providerCode: null, providerMessage: "Bad Gateway" },
  ],
  [
    "an openai-node error (status, Headers, error.code)",
    Object.assign(new Error("429 Rate limit reached"), {
      status: 429,
      headers: new Headers({ "retry-after-ms": "1500" }),
      error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
    }),
    {
      kind: "rate-limit",
      retryAfterMs: 1500,
      providerCode: "rate_limit_exceeded",
      providerMessage: "Rate limit reached",
    },
  ],
  [
    "an AI SDK RetryError, read by its last error",
    new RetryError({
      message: "Failed after 2 attempts",
      reason: "maxRetriesExceeded",
      errors: [
        apiError({ status: 500 }),
        apiError({ status: 429, body: { error: { type: "insufficient_quota" } } }),
      ],
    }),
    { kind: "quota", status: 429, retryable: false },
  ],
  [
    "a 200 whose body was cut short by the other side (the AI SDK's wrapping of undici)",
    apiError({
      status: 200,
      message: "Failed to process successful response",
      isRetryable: true,
      cause: cutBody("UND_ERR_SOCKET"),
    }),
    {
      kind: "unreadable-response",
      status: 200,
      retryable: true,
      networkCode: "UND_ERR_SOCKET",
      providerMessage: "Failed to process successful response: terminated",
    },
  ],
  [
    "a 200 whose body was cut by a reset",
    apiError({
      status: 200,
      message: "Failed to process successful response",
      cause: cutBody("ECONNRESET"),
    }),
    { kind: "unreadable-response", status: 200, retryable: true, networkCode: "ECONNRESET" },
  ],
  [
    "a 200 whose body is not JSON (a proxy's page)",
    apiError({
      status: 200,
      message: "Invalid JSON response",
      cause: Object.assign(new Error("JSON parsing failed: Text: <html>502</html>."), {
        name: "AI_JSONParseError",
      }),
    }),
    { kind: "unreadable-response", status: 200, retryable: true, networkCode: null },
  ],
  [
    "a 200 whose JSON is not the provider's shape",
    apiError({
      status: 200,
      message: "Invalid JSON response",
      body: { hello: "world" },
      cause: Object.assign(new Error("Type validation failed"), { name: "AI_TypeValidationError" }),
    }),
    { kind: "unreadable-response", status: 200, retryable: true, providerCode: null },
  ],
  [
    "a chat completion without choices (the AI SDK's InvalidResponseDataError, no status)",
    Object.assign(new Error("Response did not contain any choices."), {
      name: "AI_InvalidResponseDataError",
      data: { choices: [] },
    }),
    { kind: "unreadable-response", status: null, retryable: true },
  ],
  [
    "a fetch error caused by ECONNRESET",
    fetchFailure("ECONNRESET"),
    {
      kind: "network",
      status: null,
      retryable: true,
      networkCode: "ECONNRESET",
      providerCode: null,
    },
  ],
  [
    "a fetch error caused by ECONNREFUSED",
    fetchFailure("ECONNREFUSED"),
    { kind: "network", retryable: true, networkCode: "ECONNREFUSED" },
  ],
  [
    "a fetch error caused by UND_ERR_SOCKET",
    fetchFailure("UND_ERR_SOCKET"),
    { kind: "network", networkCode: "UND_ERR_SOCKET" },
  ],
  ["a fetch error caused by EPIPE", fetchFailure("EPIPE"), { kind: "network", retryable: true }],
  [
    "a fetch error caused by ETIMEDOUT",
    fetchFailure("ETIMEDOUT"),
    { kind: "timeout", status: null, retryable: true },
  ],
  [
    "a fetch error caused by UND_ERR_HEADERS_TIMEOUT",
    fetchFailure("UND_ERR_HEADERS_TIMEOUT"),
    { kind: "timeout", retryable: true },
  ],
  [
    "a TimeoutError",
    new DOMException("The operation was aborted due to timeout", "TimeoutError"),
    {
      kind: "timeout",
      retryable: true,
      providerMessage: "The operation was aborted due to timeout",
    },
  ],
  [
    "an AbortError",
    new DOMException("This operation was aborted", "AbortError"),
    { kind: "aborted", status: null, retryable: false },
  ],
  [
    "a dropped socket without a code",
    new Error("socket hang up"),
    { kind: "network", retryable: true, networkCode: null },
  ],
  [
    "an APICallError without status that the AI SDK marks retryable",
    apiError({
      message: "Cannot connect to API: fetch failed",
      cause: new TypeError("fetch failed"),
      isRetryable: true,
    }),
    { kind: "network", status: null, retryable: true, url: "https://api.openai.com/v1/responses" },
  ],
  [
    "a plain Error",
    new Error("my judge broke"),
    { kind: "unknown", status: null, retryable: false, providerMessage: "my judge broke" },
  ],
  [
    "a thrown string",
    "boom",
    { kind: "unknown", retryable: false, providerCode: null, providerMessage: "boom" },
  ],
  [
    "a status that is no HTTP status",
    { status: 7, message: "exit 7" },
    { kind: "unknown", status: null, providerCode: null },
  ],
];

describe("classifyJudgeError", () => {
  it.each(cases)("classifies %s", (_what, error, expected) => {
    expect(classifyJudgeError(error, { now })).toMatchObject(expected);
  });

  it("retries exactly the rate limits, server failures, timeouts, dropped connections and unreadable answers", () => {
    const transient = ["rate-limit", "server", "timeout", "network", "unreadable-response"];
    for (const [what, error] of cases) {
      const { kind, retryable } = classifyJudgeError(error, { now });
      expect(retryable, what).toBe(transient.includes(kind));
    }
  });

  it("leaves the provider's text as it is: masking is for the message", () => {
    const failure = classifyJudgeError(
      apiError({ status: 401, message: "Incorrect API key provided: sk-proj-abcdef123456" }),
      { now },
    );
    expect(failure.providerMessage).toBe("Incorrect API key provided: sk-proj-abcdef123456");
  });
});
