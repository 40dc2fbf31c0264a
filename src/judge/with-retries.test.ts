import { describe, expect, it, vi } from "vitest";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { apiError } from "./judge-error-fixtures.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-policy.ts";
import {
  type RetryInfo,
  type Sleep,
  type WithRetriesOptions,
  withRetries,
} from "./with-retries.ts";

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

  /**
   * A clock that only the injected sleep (and attempts that say so) move forward, and
   * `withRetries` on it, without jitter unless the test gives `random`.
   */
  const fakeClock = () => {
    const clock = { now: 0, delays: [] as number[] };
    const sleep: Sleep = async ({ delayMs }) => {
      clock.delays.push(delayMs);
      clock.now += delayMs;
    };
    const retry = <T>(options: WithRetriesOptions<T>) =>
      withRetries({ sleep, now: () => clock.now, random: () => 0, ...options });
    return { clock, retry };
  };
  const rateLimited = (headers: Record<string, string>) => apiError({ status: 429, headers });

  it("waits out 429s that say how long without spending the attempt budget", async () => {
    const { clock, retry } = fakeClock();
    const retries: RetryInfo[] = [];
    let calls = 0;
    const result = await retry({
      judgeName: "openai:gpt-4.1",
      // The 20 ms asked for is kept as told, however many times it is asked.
      policy: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 4 },
      onRetry: (info) => retries.push(info),
      run: async () => {
        calls++;
        if (calls <= 20) throw rateLimited({ "retry-after-ms": "20" });
        return "ok";
      },
    });
    expect(result).toBe("ok");
    expect(calls).toBe(21);
    expect(clock.delays).toEqual(Array(20).fill(20));
    expect(retries.every((info) => !info.countsAsAttempt)).toBe(true);
    expect(retries.map((info) => info.attempt)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it("treats a 503 with Retry-After and a 429 with reset headers as waits, not attempts", async () => {
    const { clock, retry } = fakeClock();
    const answers = [
      apiError({ status: 503, headers: { "retry-after": "2" } }),
      rateLimited({ "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s" }),
      apiError({ status: 503, headers: { "retry-after": "2" } }),
    ];
    const result = await retry({
      judgeName: "j",
      policy: { maxAttempts: 1 },
      run: async () => {
        const next = answers.shift();
        if (next) throw next;
        return "ok";
      },
    });
    expect(result).toBe("ok");
    expect(clock.delays).toEqual([2000, 1000, 2000]);
  });

  it("still counts a 429 without any hint, backing off exponentially", async () => {
    const { clock, retry } = fakeClock();
    let calls = 0;
    const failing = retry({
      judgeName: "openai:gpt-4.1",
      policy: { maxAttempts: 3 },
      run: async () => {
        calls++;
        throw apiError({ status: 429 });
      },
    });
    await expect(failing).rejects.toThrow(/HTTP 429.*Gave up after 3 attempts\.$/);
    expect(calls).toBe(3);
    expect(clock.delays).toEqual([250, 500]);
  });

  it("keeps hard failures bounded by maxAttempts between free rate-limit waits", async () => {
    const { clock, retry } = fakeClock();
    const pattern = [500, 429, 500, 429, 500, 429, 500];
    let calls = 0;
    const failing = retry({
      judgeName: "j",
      policy: { maxAttempts: 3 },
      run: async () => {
        const status = pattern[calls++] ?? 200;
        if (status === 429) throw rateLimited({ "retry-after-ms": "7" });
        throw apiError({ status });
      },
    });
    // The third 500 is the third counted attempt, the fifth in all.
    await expect(failing).rejects.toThrow(/HTTP 500.*Gave up after 5 attempts\.$/);
    expect(calls).toBe(5);
    // Backoff grows with counted attempts only: 250, then 500; the 7 ms waits between are
    // floored at the backoff for their own count (250, then 500), not at the 500s' count.
    expect(clock.delays).toEqual([250, 250, 500, 500]);
  });

  it("jitters the provider's wait upwards so waiting calls do not return together", async () => {
    const waits = await Promise.all(
      [0, 0.5, 0.99].map(async (random) => {
        const { clock, retry } = fakeClock();
        let calls = 0;
        await retry({
          judgeName: "j",
          random: () => random,
          run: async () => {
            if (calls++ === 0) throw rateLimited({ "retry-after": "1" });
            return "ok";
          },
        });
        return clock.delays[0];
      }),
    );
    expect(waits).toEqual([1000, 1100, 1198]);
  });

  it.each([
    ["Retry-After: 0", { "retry-after": "0" }],
    ["a Retry-After date in the past", { "retry-after": "Thu, 01 Jan 1970 00:00:00 GMT" }],
    [
      "x-ratelimit-reset-requests: 0s",
      { "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "0s" },
    ],
  ])(
    "backs off a provider that says to wait no time (%s), still spending no attempt",
    async (_what, headers) => {
      const { clock, retry } = fakeClock();
      let calls = 0;
      const failing = retry({
        judgeName: "j",
        policy: { maxAttempts: 1 },
        run: async () => {
          calls++;
          // Before the floor, the calls came back to back until maxElapsedMs passed.
          if (calls > 1000) return "hammered";
          throw rateLimited(headers);
        },
      });
      await expect(failing).rejects.toThrow(/retry\.maxElapsedMs = 600000 ms/);
      // The default backoff (500 ms doubling, 30 s at most, half of it without jitter), though
      // each rate limit spent no attempt (maxAttempts 1).
      expect(clock.delays.slice(0, 8)).toEqual([250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000]);
      expect(clock.now).toBeLessThanOrEqual(600_000);
      expect(calls).toBe(clock.delays.length + 1);
      expect(calls).toBeLessThan(50);
    },
  );

  it("stops waiting once the next wait would pass maxElapsedMs, and says what to do", async () => {
    const { clock, retry } = fakeClock();
    let calls = 0;
    const failing = retry({
      judgeName: "openai:gpt-4.1",
      run: async () => {
        calls++;
        throw rateLimited({ "retry-after": "60" });
      },
    });
    await expect(failing).rejects.toMatchObject({ name: "JudgeCallError", status: 429 });
    const message = await failing.catch((error: Error) => error.message);
    // Nine waits of a minute; the tenth would end at the budget's 10 minutes, when no attempt
    // could still be made, so it is not waited.
    expect(clock.delays).toEqual(Array(9).fill(60_000));
    expect(calls).toBe(10);
    expect(message).toMatch(
      /^Gave up after 10 attempts in 9 min \(10 times told to wait\): the provider asks to wait 1 min more, past the retry budget \(retry\.maxElapsedMs = 600000 ms\)\./,
    );
    expect(message).toMatch(/Raise retry\.maxElapsedMs/);
    expect(message).toMatch(/lower maxConcurrent/);
    expect(message).toMatch(/rate limit of your plan/);
    expect(message).toMatch(/Last failure: Judge "openai:gpt-4\.1" is rate limited \(HTTP 429\)/);
  });

  it("counts the attempts' own time against maxElapsedMs, but not time queued for a slot", async () => {
    const { clock, retry } = fakeClock();
    let calls = 0;
    const failing = retry({
      judgeName: "j",
      // A backoff below the 100 ms asked for: the waits are as told.
      policy: { maxElapsedMs: 1000, initialDelayMs: 1, maxDelayMs: 50 },
      slot: {
        acquire: async () => {
          clock.now += 3_600_000;
        },
        release: () => {},
      },
      run: async () => {
        calls++;
        clock.now += 200;
        throw rateLimited({ "retry-after-ms": "100" });
      },
    });
    await expect(failing).rejects.toThrow(/Gave up after 4 attempts in 1.1 s/);
    // 4 attempts of 200 ms and 3 waits of 100 ms: 1100 ms; one more wait would pass 1000.
    expect(calls).toBe(4);
    expect(clock.delays).toEqual([100, 100, 100]);
  });

  it("fails at once when the provider asks for more than the whole budget", async () => {
    const { clock, retry } = fakeClock();
    const failing = retry({
      judgeName: "j",
      run: async () => {
        throw rateLimited({ "retry-after": "3600" });
      },
    });
    await expect(failing).rejects.toThrow(/after 1 attempt in 0 ms .*wait 60 min more/);
    expect(clock.delays).toEqual([]);
  });

  it("bounds a hard failure's Retry-After by maxElapsedMs too", async () => {
    const { clock, retry } = fakeClock();
    const failing = retry({
      judgeName: "j",
      policy: { maxElapsedMs: 5000 },
      run: async () => {
        throw apiError({ status: 500, headers: { "retry-after": "10" } });
      },
    });
    await expect(failing).rejects.toThrow(/HTTP 500/);
    await expect(failing).rejects.toThrow(/retry\.maxElapsedMs = 5000 ms/);
    expect(clock.delays).toEqual([]);
  });

  it("starts no attempt that could not finish within maxElapsedMs: a backoff that would use it up is not waited", async () => {
    const { clock, retry } = fakeClock();
    let calls = 0;
    const failing = retry({
      judgeName: "j",
      policy: { maxElapsedMs: 1000 },
      run: async () => {
        calls++;
        clock.now += 300;
        throw apiError({ status: 500 });
      },
    });
    await expect(failing).rejects.toMatchObject({ status: 500, retryable: true });
    // 300 ms, a backoff of 250, 300 ms: 850 ms; a backoff of 500 would leave no time.
    expect(calls).toBe(2);
    expect(clock.delays).toEqual([250]);
    const message = await failing.catch((error: Error) => error.message);
    expect(message).toMatch(
      /^Gave up after 2 attempts in 850 ms: the next attempt, after a backoff of 500 ms, could not finish within the retry budget \(retry\.maxElapsedMs = 1000 ms\)\./,
    );
    expect(message).toMatch(/Last failure: Judge "j": the provider failed to answer \(HTTP 500\)/);
  });

  it("says the attempts used up maxElapsedMs when the last one failed on its own past it", async () => {
    const { clock, retry } = fakeClock();
    const failing = retry({
      judgeName: "j",
      policy: { maxElapsedMs: 1000 },
      run: async () => {
        clock.now += 600;
        throw apiError({ status: 502 });
      },
    });
    await expect(failing).rejects.toThrow(
      /^Gave up after 2 attempts in 1.5 s: the attempts used up the retry budget \(retry\.maxElapsedMs = 1000 ms\), leaving no time for another\..*Last failure: .*HTTP 502/,
    );
    expect(clock.delays).toEqual([250]);
  });

  it("passes verdict's own errors through untouched", async () => {
    const own = new EvalError("INVALID_TEST_CASE", "Image file is missing");
    await expect(
      withRetries({ judgeName: "j", run: async () => Promise.reject(own) }),
    ).rejects.toBe(own);
  });
});

describe("withRetries: maxElapsedMs bounds the whole life of a request", () => {
  /**
   * A judge that accepts every attempt and never answers, on Vitest's fake clock (timers and
   * `Date.now`): resolves with when the request failed, in fake ms, and how.
   */
  async function neverAnswering(policy: Partial<RetryPolicy>) {
    vi.useFakeTimers({ now: 0 });
    try {
      const signals: AbortSignal[] = [];
      const starts: number[] = [];
      const sleep: Sleep = ({ delayMs }) => new Promise((resolve) => setTimeout(resolve, delayMs));
      let failedAt: number | null = null;
      const request = withRetries({
        judgeName: "openai:gpt-4.1",
        policy,
        sleep,
        random: () => 0,
        run: (signal) => {
          signals.push(signal);
          starts.push(Date.now());
          return new Promise<string>(() => {});
        },
      }).catch((error: unknown) => {
        failedAt = Date.now();
        return error;
      });
      // Far past any bound: 6 attempts of 2 minutes and their backoffs would take 12.3 minutes.
      for (let minute = 0; minute < 20 && failedAt === null; minute++) {
        await vi.advanceTimersByTimeAsync(60_000);
      }
      const error = (await request) as JudgeCallError;
      return { error, failedAt: failedAt as number | null, starts, signals };
    } finally {
      vi.useRealTimers();
    }
  }

  it("errors within maxElapsedMs for a judge that never answers ({ timeoutMs: 3000, maxElapsedMs: 5000 })", async () => {
    const { error, failedAt, starts, signals } = await neverAnswering({
      timeoutMs: 3000,
      maxElapsedMs: 5000,
    });
    // One attempt cut by its timeout at 3 s, a backoff of 250 ms, a second cut at the bound.
    expect(starts).toEqual([0, 3250]);
    expect(failedAt).toBe(5000);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(error).toBeInstanceOf(JudgeCallError);
    expect(error).toMatchObject({ status: null, retryable: true });
    expect(error.message).toMatch(
      /^Gave up after 2 attempts in 5 s: the retry budget \(retry\.maxElapsedMs = 5000 ms\) ran out while waiting for an answer\./,
    );
    expect(error.message).toMatch(/Last failure: Judge "openai:gpt-4\.1" timed out/);
  });

  it("errors within the documented 10 minutes at the defaults (was 12.2 minutes)", async () => {
    const { error, failedAt, starts } = await neverAnswering({});
    expect(DEFAULT_RETRY_POLICY.maxElapsedMs).toBe(600_000);
    expect(failedAt).toBe(600_000);
    // Four attempts of 2 minutes and their backoffs (250, 500, 1000, 2000 ms); the fifth is
    // cut at the bound, and no sixth starts.
    expect(starts).toEqual([0, 120_250, 240_750, 361_750, 483_750]);
    expect(error.message).toMatch(/retry\.maxElapsedMs = 600000 ms\) ran out/);
  });

  it("cuts the first attempt at the bound when maxElapsedMs is shorter than timeoutMs", async () => {
    const { failedAt, starts } = await neverAnswering({ maxElapsedMs: 1500 });
    expect(starts).toEqual([0]);
    expect(failedAt).toBe(1500);
  });
});
