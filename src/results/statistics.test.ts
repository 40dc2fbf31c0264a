import { describe, expect, it } from "vitest";
import {
  bootstrapMeanInterval,
  mcnemarExact,
  pairedBootstrap,
  seededRandom,
  wilcoxonSignedRank,
  wilsonInterval,
} from "./statistics.ts";

describe("wilsonInterval", () => {
  it("matches the textbook values, stays within 0..1 and is null without trials", () => {
    const [low, high] = wilsonInterval({ successes: 9, trials: 10 }) ?? [];
    expect(low).toBeCloseTo(0.5958, 3);
    expect(high).toBeCloseTo(0.9821, 3);
    expect(wilsonInterval({ successes: 0, trials: 20 })?.[0]).toBe(0);
    expect(wilsonInterval({ successes: 20, trials: 20 })?.[1]).toBe(1);
    expect(wilsonInterval({ successes: 20, trials: 20 })?.[0]).toBeCloseTo(0.8389, 3);
    expect(wilsonInterval({ successes: 0, trials: 0 })).toBeNull();
  });
});

describe("bootstrapMeanInterval", () => {
  it("is reproducible, brackets the mean, and covers the true mean about 95% of the time", () => {
    const values = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.55];
    const interval = bootstrapMeanInterval({ values });
    expect(bootstrapMeanInterval({ values })).toEqual(interval);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(interval?.[0]).toBeLessThan(mean);
    expect(interval?.[1]).toBeGreaterThan(mean);
    expect(bootstrapMeanInterval({ values: [] })).toBeNull();
    expect(bootstrapMeanInterval({ values: [0.3] })).toEqual([0.3, 0.3]);
    // 100 samples of 60 uniform scores (true mean 0.5): the interval covers it in most.
    const random = seededRandom(7);
    let covered = 0;
    for (let sample = 0; sample < 100; sample++) {
      const scores = Array.from({ length: 60 }, () => random());
      const [low, high] = bootstrapMeanInterval({ values: scores, resamples: 500 }) ?? [1, 0];
      if (low <= 0.5 && 0.5 <= high) covered += 1;
    }
    expect(covered).toBeGreaterThanOrEqual(88);
    expect(covered).toBeLessThan(100);
  });
});

describe("mcnemarExact", () => {
  it("gives the exact two-sided binomial p-value of the changed pairs", () => {
    // P(X <= 2 | n = 14, p = 1/2) = 106 / 16384, doubled.
    expect(mcnemarExact({ passToFail: 12, failToPass: 2 })).toBeCloseTo((2 * 106) / 16384, 10);
    expect(mcnemarExact({ passToFail: 2, failToPass: 12 })).toBeCloseTo((2 * 106) / 16384, 10);
    expect(mcnemarExact({ passToFail: 5, failToPass: 5 })).toBe(1);
    expect(mcnemarExact({ passToFail: 0, failToPass: 0 })).toBe(1);
  });
});

describe("pairedBootstrap", () => {
  it("finds a real paired drop and not a zero one", () => {
    const random = seededRandom(3);
    const before = Array.from({ length: 200 }, () => random());
    const dropped = before.map((value) => value - 0.1 + (random() - 0.5) * 0.05);
    const result = pairedBootstrap({ before, after: dropped });
    expect(result?.meanDifference).toBeCloseTo(-0.1, 1);
    expect(result?.interval[1]).toBeLessThan(0);
    expect(result?.pValue).toBeLessThan(0.01);
    const noise = before.map((value) => value + (random() - 0.5) * 0.05);
    expect(pairedBootstrap({ before, after: noise })?.pValue).toBeGreaterThan(0.05);
    expect(pairedBootstrap({ before: [0.5, 0.5], after: [0.5, 0.5] })?.pValue).toBe(1);
    expect(pairedBootstrap({ before: [], after: [] })).toBeNull();
    expect(() => pairedBootstrap({ before: [1], after: [] })).toThrow(/paired values/);
  });
});

describe("one-sided tests", () => {
  it("McNemar 'worse' is the one-sided mid-p; Wilcoxon 'less'/'greater' the one-sided tails", () => {
    // P(X >= 12 | n = 14) = 106 / 16384, minus half of P(X = 12) = 91 / 16384.
    expect(mcnemarExact({ passToFail: 12, failToPass: 2, alternative: "worse" })).toBeCloseTo(
      (106 - 45.5) / 16384,
      10,
    );
    // Improvements are never "worse".
    expect(mcnemarExact({ passToFail: 2, failToPass: 12, alternative: "worse" })).toBeGreaterThan(
      0.99,
    );
    const before = [0.9, 0.8, 0.7, 0.6, 0.5];
    const lower = [0.5, 0.4, 0.3, 0.2, 0.1];
    // All five lower: one-sided exact p = 1/32; the other side almost 1.
    expect(wilcoxonSignedRank({ before, after: lower, alternative: "less" })).toBeCloseTo(
      1 / 32,
      10,
    );
    expect(wilcoxonSignedRank({ before, after: lower, alternative: "greater" })).toBeCloseTo(1, 10);
    expect(wilcoxonSignedRank({ before, after: lower })).toBeCloseTo(2 / 32, 10);
    // Three pairs all worse are not evidence at 5%.
    expect(wilcoxonSignedRank({ before: [0.9, 0.8, 0.7], after: [0.6, 0.5, 0.4] })).toBe(0.25);
    expect(() => wilcoxonSignedRank({ before: [1], after: [] })).toThrow(/paired values/);
  });

  it("the large-sample signed-rank test (over 50 pairs) agrees with the exact one", () => {
    const random = seededRandom(11);
    const before = Array.from({ length: 50 }, () => random());
    const after = before.map((value) => value - 0.03 + (random() - 0.5) * 0.2);
    const exact = wilcoxonSignedRank({ before, after, alternative: "less" });
    // One more pair (51: the normal approximation), a tiny difference of the lowest rank.
    const approximate = wilcoxonSignedRank({
      before: [...before, 0.5],
      after: [...after, 0.5 + 1e-9],
      alternative: "less",
    });
    expect(exact).toBeGreaterThan(1e-5);
    expect(exact).toBeLessThan(1e-3);
    expect(approximate / exact).toBeGreaterThan(0.6);
    expect(approximate / exact).toBeLessThan(1.6);
  });
});
