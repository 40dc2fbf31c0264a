import { describe, expect, it } from "vitest";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { MAX_RETRY_AFTER_MS, retryDelayMs } from "./retry-policy.ts";

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
