import { RetryError } from "ai";
import { describe, expect, it } from "vitest";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { apiError } from "./judge-error-fixtures.ts";
import { toJudgeCallError } from "./to-judge-call-error.ts";

const classify = (error: unknown, judgeName = "openai:gpt-4.1") =>
  toJudgeCallError({ error, judgeName, now: Date.parse("2025-01-01T00:00:00Z") });

describe("toJudgeCallError", () => {
  it("retries a 429 and reads Retry-After in seconds, ms or as an HTTP date", () => {
    const seconds = classify(apiError({ status: 429, headers: { "retry-after": "2" } }));
    expect(seconds).toMatchObject({ status: 429, retryable: true, retryAfterMs: 2000 });
    expect(seconds.message).toMatch(/^Judge "openai:gpt-4\.1" is rate limited \(HTTP 429\)/);
    expect(seconds.message).toContain("maxConcurrent");
    expect(
      classify(apiError({ status: 429, headers: { "retry-after-ms": "250", "retry-after": "9" } }))
        .retryAfterMs,
    ).toBe(250);
    const date = classify(
      apiError({ status: 503, headers: { "Retry-After": "Wed, 01 Jan 2025 00:00:30 GMT" } }),
    );
    expect(date).toMatchObject({ status: 503, retryable: true, retryAfterMs: 30_000 });
    expect(classify(apiError({ status: 429 })).retryAfterMs).toBeNull();
  });

  it("does not retry an exhausted quota and says to check billing", () => {
    const error = classify(
      apiError({
        status: 429,
        body: {
          error: {
            message: "You exceeded your current quota",
            type: "insufficient_quota",
            code: "insufficient_quota",
          },
        },
      }),
    );
    expect(error).toMatchObject({ status: 429, retryable: false, quotaExhausted: true });
    expect(error.message).toMatch(/^Judge "openai:gpt-4\.1"/);
    expect(error.message).toContain("quota or credit is exhausted");
    expect(error.message).toContain("billing");
    expect(error.message).toContain("no retry will help");
  });

  it("names the API-key variable on 401/403 and hides keys the provider echoed", () => {
    const body = {
      error: {
        message: "Incorrect API key provided: sk-proj-abcdef123456. You can find your key at …",
        code: "invalid_api_key",
      },
    };
    const error = classify(apiError({ status: 401, body, message: body.error.message }));
    expect(error).toMatchObject({ status: 401, retryable: false, providerCode: "invalid_api_key" });
    expect(error.message).toContain("OPENAI_API_KEY");
    expect(error.message).not.toContain("sk-proj-abcdef123456");
    expect(error.message).toContain("Incorrect API key provided");
    expect(classify(apiError({ status: 403 }), "anthropic:claude-sonnet-4-5").message).toContain(
      "ANTHROPIC_API_KEY",
    );
    expect(classify(apiError({ status: 401 }), "google:gemini-2.5-flash").message).toContain(
      "GOOGLE_GENERATIVE_AI_API_KEY",
    );
    expect(classify(apiError({ status: 401 }), "azure:my-deployment").message).toContain(
      "AZURE_API_KEY",
    );
    const custom = classify(apiError({ status: 401 }), "my-judge");
    expect(custom.message).toContain("Check the API key this judge uses");
    expect(custom.message).not.toMatch(/[A-Z]+_API_KEY/);
  });

  it("says a 404 is an unknown model, and does not retry other 4xx", () => {
    const missing = classify(
      apiError({ status: 404, message: "The model `gpt-9` does not exist" }),
    );
    expect(missing).toMatchObject({ status: 404, retryable: false });
    expect(missing.message).toContain("model not found");
    expect(missing.message).toContain("Check the model name");
    const bad = classify(apiError({ status: 400, message: "Invalid value for 'max_tokens'" }));
    expect(bad).toMatchObject({ status: 400, retryable: false });
    expect(bad.message).toContain("Invalid value for 'max_tokens'");
    expect(bad.message).toContain("HTTP 400");
  });

  it("names a close known model on an unknown one, and calls it a configuration error", () => {
    const typo = classify(
      apiError({
        status: 404,
        body: { error: { message: "The model `gtp-4.1` does not exist", code: "model_not_found" } },
      }),
      "openai:gtp-4.1",
    );
    expect(typo.kind).toBe("configuration");
    expect(typo.message).toContain('Did you mean "gpt-4.1"?');
    expect(typo.message).toContain("VERDICT_MODEL");
    const unknown = classify(apiError({ status: 404 }), "openai:my-fine-tune");
    expect(unknown.message).not.toContain("Did you mean");
    // OpenAI may say model_not_found with another status: still an unknown model.
    const other = classify(
      apiError({ status: 400, body: { error: { code: "model_not_found" } } }),
      "openai:gtp-4.1",
    );
    expect(other.kind).toBe("configuration");
    expect(other.message).toContain("model not found (HTTP 400)");
  });

  it("tells configuration errors from quota, transient and other failures", () => {
    const kindOf = (status: number, code?: string) =>
      classify(apiError({ status, ...(code ? { body: { error: { code } } } : {}) })).kind;
    expect(kindOf(401)).toBe("configuration");
    expect(kindOf(403)).toBe("configuration");
    expect(kindOf(404)).toBe("configuration");
    expect(kindOf(429, "insufficient_quota")).toBe("quota");
    expect(kindOf(429)).toBe("transient");
    expect(kindOf(503)).toBe("transient");
    expect(kindOf(400)).toBe("failure");
  });

  it("retries 408, 409 and 5xx, with the provider's code", () => {
    for (const status of [408, 409, 500, 502, 503, 529]) {
      expect(classify(apiError({ status })).retryable, `HTTP ${status}`).toBe(true);
    }
    const overloaded = classify(
      apiError({
        status: 529,
        body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      }),
      "anthropic:claude-sonnet-4-5",
    );
    expect(overloaded.providerCode).toBe("overloaded_error");
    expect(overloaded.message).toContain("HTTP 529");
  });

  it("unwraps an AI SDK RetryError", () => {
    const last = apiError({
      status: 429,
      body: { error: { message: "quota", type: "insufficient_quota" } },
    });
    const wrapped = new RetryError({
      message: "Failed after 3 attempts",
      reason: "maxRetriesExceeded",
      errors: [apiError({ status: 500 }), last],
    });
    expect(classify(wrapped)).toMatchObject({
      status: 429,
      retryable: false,
      quotaExhausted: true,
    });
  });

  it("reads openai-node style errors (status, headers, error.code)", () => {
    const error = Object.assign(new Error("429 Rate limit reached"), {
      status: 429,
      headers: new Headers({ "retry-after-ms": "1500" }),
      error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
    });
    expect(classify(error)).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 1500,
      providerCode: "rate_limit_exceeded",
    });
  });

  it("retries dropped connections and timeouts, which have no status", () => {
    for (const code of ["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "UND_ERR_SOCKET", "EPIPE"]) {
      const fetchError = new TypeError("fetch failed", {
        cause: Object.assign(new Error(code), { code }),
      });
      expect(classify(fetchError), code).toMatchObject({ status: null, retryable: true });
    }
    expect(classify(new Error("socket hang up")).retryable).toBe(true);
    const wrapped = apiError({
      message: "Cannot connect to API: fetch failed",
      cause: new TypeError("fetch failed"),
      isRetryable: true,
    });
    expect(classify(wrapped)).toMatchObject({ status: null, retryable: true });
    const timeout = classify(
      new DOMException("The operation was aborted due to timeout", "TimeoutError"),
    );
    expect(timeout).toMatchObject({ status: null, retryable: true });
    expect(timeout.message).toMatch(/^Judge "openai:gpt-4\.1" timed out/);
    const reset = classify(
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("x"), { code: "ECONNRESET" }),
      }),
    );
    expect(reset.providerCode).toBeNull();
    expect(reset.message).toContain("ECONNRESET");
  });

  it("retries a 200 whose body was cut or unreadable, and says so instead of blaming the model name", () => {
    const cut = classify(
      apiError({
        status: 200,
        message: "Failed to process successful response",
        cause: new TypeError("terminated", {
          cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
        }),
      }),
    );
    expect(cut).toMatchObject({ status: 200, retryable: true, kind: "transient" });
    expect(cut.message).toMatch(
      /^Judge "openai:gpt-4\.1": the response was cut short \(HTTP 200, then the connection closed: UND_ERR_SOCKET\)/,
    );
    const page = classify(
      apiError({
        status: 200,
        message: "Invalid JSON response",
        cause: Object.assign(new Error("JSON parsing failed: Text: <html>502</html>."), {
          name: "AI_JSONParseError",
        }),
      }),
    );
    expect(page).toMatchObject({ status: 200, retryable: true, kind: "transient" });
    expect(page.message).toMatch(
      /^Judge "openai:gpt-4\.1": the response could not be read \(HTTP 200, but the body is not the provider's JSON\)/,
    );
    for (const error of [cut, page]) {
      expect(error.message).not.toMatch(/model name|Retrying will not help/);
    }
  });

  it("does not retry unknown errors, and returns a JudgeCallError as is", () => {
    const unknown = classify(new Error("my judge broke"), "my-judge");
    expect(unknown).toMatchObject({ status: null, retryable: false });
    expect(unknown.message).toMatch(/^Judge "my-judge" failed/);
    expect(unknown.message).toContain("my judge broke");
    const already = new JudgeCallError({ message: "x", status: 500, retryable: true });
    expect(classify(already)).toBe(already);
  });

  it("masks the configured key's value, whatever its format, and keys in the URL", () => {
    const env = { VERDICT_API_KEY: "local-server-key-42" };
    const echoed = toJudgeCallError({
      error: apiError({ status: 401, message: "Key local-server-key-42 is not valid here" }),
      judgeName: "openai-compatible:my-model",
      env,
    });
    expect(echoed.message).not.toContain("local-server-key-42");
    expect(echoed.message).toContain("Key *** is not valid here");
    expect(echoed.message).toContain("Check VERDICT_API_KEY");
    const refused = toJudgeCallError({
      error: Object.assign(
        new TypeError("fetch failed", {
          cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
        }),
        { url: "http://127.0.0.1:9/v1/chat?api-key=local-server-key-42" },
      ),
      judgeName: "openai-compatible:my-model",
      env,
    });
    expect(refused.message).toContain("ECONNREFUSED");
    expect(refused.message).toContain("to http://127.0.0.1:9/v1/chat?api-key=***");
    expect(refused.cause).toMatchObject({ name: "TypeError", message: "fetch failed" });
  });
});
