import { describe, expect, it } from "vitest";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { apiError } from "./judge-error-fixtures.ts";
import { DEFAULT_RETRY_POLICY } from "./retry-policy.ts";
import { type RetryInfo, type Sleep, withRetries } from "./with-retries.ts";

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
