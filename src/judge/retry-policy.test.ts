import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import {
  DEFAULT_RETRY_POLICY,
  isProviderWait,
  resolveRetryPolicy,
  retryDelayMs,
} from "./retry-policy.ts";

const failure = (status: number, retryAfterMs: number | null, providerCode?: string) =>
  new JudgeCallError({
    message: "x",
    status,
    retryable: status !== 429 || providerCode === undefined,
    retryAfterMs,
    ...(providerCode === undefined ? {} : { providerCode }),
  });

describe("retryDelayMs", () => {
  it("backs off exponentially with equal jitter, capped at maxDelayMs", () => {
    const policy = { initialDelayMs: 500, maxDelayMs: 3000 };
    const delays = (random: number) =>
      [1, 2, 3, 4, 5].map((attempt) => retryDelayMs({ attempt, policy, random: () => random }));
    expect(delays(0)).toEqual([250, 500, 1000, 1500, 1500]);
    expect(delays(0.999_999)).toEqual([500, 1000, 2000, 3000, 3000]);
  });

  it("waits the provider's time over the backoff, plus up to 20% jitter, never less", () => {
    const wait = (retryAfterMs: number, random: number) =>
      retryDelayMs({ attempt: 1, error: failure(429, retryAfterMs), random: () => random });
    expect(wait(1000, 0)).toBe(1000);
    expect(wait(1000, 0.5)).toBe(1100);
    expect(wait(1000, 0.999_999)).toBe(1200);
    // Past maxDelayMs and past the old 5-minute cap: maxElapsedMs bounds it now.
    expect(
      retryDelayMs({
        attempt: 1,
        error: failure(429, 3_600_000),
        policy: { maxDelayMs: 1000 },
        random: () => 0,
      }),
    ).toBe(3_600_000);
  });
  it("backs off a provider wait below MIN_PROVIDER_WAIT_MS (0, a past date) by the waits so far", () => {
    const wait = (retryAfterMs: number, providerWaits: number, random = 0) =>
      retryDelayMs({
        attempt: 0,
        error: failure(429, retryAfterMs),
        providerWaits,
        policy: { initialDelayMs: 500, maxDelayMs: 30_000 },
        random: () => random,
      });
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((waits) => wait(0, waits))).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000,
    ]);
    expect(wait(0, 1, 0.999_999)).toBe(500);
    expect(wait(9, 3)).toBe(1000);
    // A usable wait is kept as told, however many came before.
    expect(wait(10, 8)).toBe(10);
    expect(wait(1000, 2)).toBe(1000);
    expect(wait(1000, 4)).toBe(1000);
  });
});

describe("isProviderWait", () => {
  it("is a 429 or 503 that says how long to wait, and nothing else", () => {
    expect(isProviderWait(failure(429, 20))).toBe(true);
    expect(isProviderWait(failure(503, 0))).toBe(true);
    expect(isProviderWait(failure(429, null))).toBe(false);
    expect(isProviderWait(failure(500, 1000))).toBe(false);
    expect(isProviderWait(failure(429, 1000, "insufficient_quota"))).toBe(false);
  });
});

describe("resolveRetryPolicy", () => {
  it("fills in the defaults, 10 minutes of waiting among them", () => {
    expect(resolveRetryPolicy({ maxAttempts: 2 })).toEqual({
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 2,
    });
    expect(DEFAULT_RETRY_POLICY.maxElapsedMs).toBe(600_000);
    expect(resolveRetryPolicy({ maxElapsedMs: Number.POSITIVE_INFINITY }).maxElapsedMs).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it.each([
    [{ maxElapsedMs: 0 }, /retry\.maxElapsedMs must be at least 1 millisecond.*got 0\./],
    [{ maxElapsedMs: -5 }, /retry\.maxElapsedMs .*got -5\./],
    [{ maxAttempts: 0 }, /retry\.maxAttempts must be a whole number of at least 1; got 0\./],
    [{ maxAttempts: 2.5 }, /retry\.maxAttempts .*got 2\.5\./],
    [{ timeoutMs: Number.NaN }, /retry\.timeoutMs .*got NaN\./],
    [{ initialDelayMs: "500" as unknown as number }, /retry\.initialDelayMs .*got "500"\./],
  ])("refuses %j with a ConfigError that names the field", (policy, message) => {
    expect(() => resolveRetryPolicy(policy)).toThrow(message);
    expect(() => resolveRetryPolicy(policy)).toThrow(/leave it out for the default/);
    expect(() => resolveRetryPolicy(policy)).toThrow(ConfigError);
  });
});
