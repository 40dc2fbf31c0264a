import { describe, expect, it } from "vitest";
import {
  bootstrapMeanInterval,
  mcnemarExact,
  pairedBootstrap,
  seededRandom,
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
