import { APICallError, RetryError } from "ai";
import { describe, expect, it } from "vitest";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import {
  DEFAULT_RETRY_POLICY,
  MAX_RETRY_AFTER_MS,
  type RetryInfo,
  retryDelayMs,
  type Sleep,
  toJudgeCallError,
  withRetries,
} from "./retry-policy.ts";

function apiError(options: {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  message?: string;
  cause?: unknown;
  isRetryable?: boolean;
}): APICallError {
  return new APICallError({
    message: options.message ?? "provider said no",
    url: "https://api.openai.com/v1/responses",
    requestBodyValues: {},
    ...(options.status === undefined ? {} : { statusCode: options.status }),
    ...(options.headers === undefined ? {} : { responseHeaders: options.headers }),
    ...(options.body === undefined ? {} : { responseBody: JSON.stringify(options.body) }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    ...(options.isRetryable === undefined ? {} : { isRetryable: options.isRetryable }),
  });
}

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

  it("does not retry unknown errors, and returns a JudgeCallError as is", () => {
    const unknown = classify(new Error("my judge broke"), "my-judge");
    expect(unknown).toMatchObject({ status: null, retryable: false });
    expect(unknown.message).toMatch(/^Judge "my-judge" failed/);
    expect(unknown.message).toContain("my judge broke");
    const already = new JudgeCallError({ message: "x", status: 500, retryable: true });
    expect(classify(already)).toBe(already);
  });
});

describe("retryDelayMs", () => {
  it("backs off exponentially with equal jitter, capped at maxDelayMs", () => {
    const policy = { initialDelayMs: 500, maxDelayMs: 3000 };
    const delays = (random: number) =>
      [1, 2, 3, 4, 5].map((attempt) => retryDelayMs({ attempt, policy, random: () => random }));
    expect(delays(0)).toEqual([250, 500, 1000, 1500, 1500]);
    expect(delays(0.999_999)).toEqual([500, 1000, 2000, 3000, 3000]);
  });

  it("honours Retry-After over the backoff, up to 5 minutes", () => {
    const error = (retryAfterMs: number) =>
      new JudgeCallError({ message: "x", status: 429, retryable: true, retryAfterMs });
    expect(retryDelayMs({ attempt: 1, error: error(1000), random: () => 0 })).toBe(1000);
    expect(retryDelayMs({ attempt: 1, error: error(60_000), policy: { maxDelayMs: 1000 } })).toBe(
      60_000,
    );
    expect(retryDelayMs({ attempt: 1, error: error(3_600_000) })).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe("withRetries", () => {
  const recordingSleep = () => {
    const delays: number[] = [];
    const sleep: Sleep = async ({ delayMs }) => {
      delays.push(delayMs);
    };
    return { delays, sleep };
  };

  it("retries retryable failures and returns the first success", async () => {
    const { delays, sleep } = recordingSleep();
    const retries: RetryInfo[] = [];
    let calls = 0;
    const result = await withRetries({
      judgeName: "openai:gpt-4.1",
      sleep,
      random: () => 0,
      onRetry: (info) => retries.push(info),
      run: async () => {
        calls++;
        if (calls === 1) throw apiError({ status: 500 });
        if (calls === 2) throw apiError({ status: 429, headers: { "retry-after": "3" } });
        return "ok";
      },
    });
    expect(result).toBe("ok");
    expect(calls).toBe(3);
    expect(delays).toEqual([250, 3000]);
    expect(retries.map((info) => [info.attempt, info.delayMs, info.error.status])).toEqual([
      [1, 250, 500],
      [2, 3000, 429],
    ]);
  });

  it("does not retry a non-retryable failure", async () => {
    const { delays, sleep } = recordingSleep();
    let calls = 0;
    const failing = withRetries({
      judgeName: "openai:gpt-4.1",
      sleep,
      run: async () => {
        calls++;
        throw apiError({ status: 401 });
      },
    });
    await expect(failing).rejects.toMatchObject({
      name: "JudgeCallError",
      status: 401,
      retryable: false,
    });
    expect(calls).toBe(1);
    expect(delays).toEqual([]);
  });

  it("gives up after maxAttempts and says how many attempts were made", async () => {
    const { delays, sleep } = recordingSleep();
    let calls = 0;
    const failing = withRetries({
      judgeName: "openai:gpt-4.1",
      sleep,
      run: async () => {
        calls++;
        throw apiError({ status: 503 });
      },
    });
    await expect(failing).rejects.toThrow(
      /^Judge "openai:gpt-4\.1".*HTTP 503.*after 6 attempts\.$/,
    );
    await expect(failing).rejects.toBeInstanceOf(JudgeCallError);
    expect(calls).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(delays).toHaveLength(5);
  });

  it("times out an attempt that does not answer, even one that ignores the signal, and retries it", async () => {
    const { sleep } = recordingSleep();
    let calls = 0;
    let firstSignal: AbortSignal | undefined;
    const result = await withRetries({
      judgeName: "slow",
      policy: { timeoutMs: 20 },
      sleep,
      run: async (signal) => {
        calls++;
        if (calls === 1) {
          firstSignal = signal;
          return await new Promise<string>(() => {});
        }
        return "second try";
      },
    });
    expect(result).toBe("second try");
    expect(firstSignal?.aborted).toBe(true);
  });

  it("reports a timeout as a retryable JudgeCallError", async () => {
    const failing = withRetries({
      judgeName: "slow",
      policy: { timeoutMs: 10, maxAttempts: 1 },
      run: () => new Promise<string>(() => {}),
    });
    await expect(failing).rejects.toMatchObject({ status: null, retryable: true });
    await expect(failing).rejects.toThrow(
      /^Judge "slow" timed out: no answer within 10 ms.*after 1 attempt\.$/,
    );
  });

  it("stops at once with ABORTED when the caller's signal aborts, while waiting or calling", async () => {
    const controller = new AbortController();
    let calls = 0;
    const waiting = withRetries({
      judgeName: "j",
      signal: controller.signal,
      sleep: ({ signal }) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason));
          controller.abort();
        }),
      run: async () => {
        calls++;
        throw apiError({ status: 500 });
      },
    });
    await expect(waiting).rejects.toMatchObject({ code: "ABORTED" });
    await expect(waiting).rejects.toBeInstanceOf(EvalError);
    expect(calls).toBe(1);

    const calling = new AbortController();
    const hanging = withRetries({
      judgeName: "j",
      signal: calling.signal,
      run: () => {
        queueMicrotask(() => calling.abort());
        return new Promise<string>(() => {});
      },
    });
    await expect(hanging).rejects.toMatchObject({ code: "ABORTED" });
  });

  it("passes verdict's own errors through untouched", async () => {
    const own = new EvalError("INVALID_TEST_CASE", "Image file is missing");
    await expect(
      withRetries({ judgeName: "j", run: async () => Promise.reject(own) }),
    ).rejects.toBe(own);
  });
});
