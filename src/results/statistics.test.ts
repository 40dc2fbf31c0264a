import { describe, expect, it } from "vitest";
import {
  bootstrapMeanInterval,
  cohensKappa,
  mcnemarExact,
  midRanks,
  pairedBootstrap,
  rocAuc,
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

describe("cohensKappa", () => {
  it("gives the textbook κ and, for symmetric margins, the standard error of 2·accuracy − 1", () => {
    // 50 items: both say yes 20, people yes / judge no 5, people no / judge yes 10, both no 15.
    expect(
      cohensKappa({
        matrix: [
          [20, 5],
          [10, 15],
        ],
      }).kappa,
    ).toBeCloseTo(0.4, 12);
    // Margins 0.5 everywhere: κ = 2·po − 1, and Fleiss–Cohen–Everitt reduces to 2·√(po(1−po)/n).
    const symmetric = cohensKappa({
      matrix: [
        [40, 10],
        [10, 40],
      ],
    });
    expect(symmetric.kappa).toBeCloseTo(0.6, 12);
    expect(symmetric.standardError).toBeCloseTo(2 * Math.sqrt((0.8 * 0.2) / 100), 12);
    expect(symmetric.interval?.[0]).toBeCloseTo(0.6 - 1.959964 * 0.08, 5);
    expect(symmetric.interval?.[1]).toBeCloseTo(0.6 + 1.959964 * 0.08, 5);
  });

  it("matches the spread of κ over simulated samples", () => {
    // Cells of a judge that agrees 85% of the time on a 30/70 split, drawn 3,000 times × 200.
    const cells = [0.27, 0.03, 0.12, 0.58];
    const random = seededRandom(11);
    const kappas: number[] = [];
    for (let sample = 0; sample < 3000; sample++) {
      const counts = [0, 0, 0, 0];
      for (let draw = 0; draw < 200; draw++) {
        const u = random();
        const cell = u < 0.27 ? 0 : u < 0.3 ? 1 : u < 0.42 ? 2 : 3;
        counts[cell] = (counts[cell] as number) + 1;
      }
      const [a, b, c, d] = counts as [number, number, number, number];
      kappas.push(
        cohensKappa({
          matrix: [
            [a, b],
            [c, d],
          ],
        }).kappa as number,
      );
    }
    const mean = kappas.reduce((sum, value) => sum + value, 0) / kappas.length;
    const spread = Math.sqrt(
      kappas.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (kappas.length - 1),
    );
    const counts = cells.map((share) => share * 200);
    const analytic = cohensKappa({
      matrix: [
        [counts[0] as number, counts[1] as number],
        [counts[2] as number, counts[3] as number],
      ],
    });
    expect(mean).toBeCloseTo(analytic.kappa as number, 1);
    expect(Math.abs(spread / (analytic.standardError as number) - 1)).toBeLessThan(0.06);
  });

  it("is null when undefined, 0 for a constant judge, and refuses a matrix that is not square", () => {
    expect(
      cohensKappa({
        matrix: [
          [0, 0],
          [0, 0],
        ],
      }).kappa,
    ).toBeNull();
    // Everyone and the judge say "no": agreement is all chance.
    expect(
      cohensKappa({
        matrix: [
          [0, 0],
          [0, 30],
        ],
      }).interval,
    ).toBeNull();
    // A judge that always says "no", and perfect agreement: κ is defined, a 0-width interval
    // would claim certainty, so there is none.
    const constant = cohensKappa({
      matrix: [
        [0, 20],
        [0, 30],
      ],
    });
    expect(constant.kappa).toBeCloseTo(0, 12);
    expect(constant.interval).toBeNull();
    expect(
      cohensKappa({
        matrix: [
          [10, 0],
          [0, 30],
        ],
      }),
    ).toMatchObject({ kappa: 1, interval: null });
    expect(() =>
      cohensKappa({
        matrix: [
          [1, 2, 3],
          [4, 5, 6],
        ],
      }),
    ).toThrow(/square/);
  });
});

describe("cohensKappa and wilsonInterval on a judge that flips labels at a known rate", () => {
  // The judge answers each item's true label, flipped with probability p (seeded); the truth
  // is accuracy 1 − p and κ = (po − pe) / (1 − pe) of the expected confusion matrix.
  function trueKappa(prevalence: number, flip: number): number {
    const predicted = prevalence * (1 - flip) + (1 - prevalence) * flip;
    const chance = prevalence * predicted + (1 - prevalence) * (1 - predicted);
    return (1 - flip - chance) / (1 - chance);
  }

  for (const { n, prevalence, flip } of [
    { n: 200, prevalence: 0.5, flip: 0.15 },
    { n: 300, prevalence: 0.3, flip: 0.1 },
  ]) {
    it(`covers the true κ and accuracy in at least 93 of 100 seeds (n ${n}, ${prevalence * 100}% positive, p ${flip})`, () => {
      const truth = trueKappa(prevalence, flip);
      let kappaCovered = 0;
      let accuracyCovered = 0;
      for (let seed = 1; seed <= 100; seed++) {
        const random = seededRandom(seed);
        const matrix = [
          [0, 0],
          [0, 0],
        ] as [[number, number], [number, number]];
        for (let item = 0; item < n; item++) {
          const label = item < n * prevalence ? 0 : 1;
          const answer = random() < flip ? 1 - label : label;
          const row = label === 0 ? matrix[0] : matrix[1];
          row[answer === 0 ? 0 : 1] += 1;
        }
        const [low, high] = cohensKappa({ matrix }).interval ?? [2, -2];
        if (low <= truth && truth <= high) kappaCovered += 1;
        const accuracy = wilsonInterval({ successes: matrix[0][0] + matrix[1][1], trials: n });
        if (accuracy && accuracy[0] <= 1 - flip && 1 - flip <= accuracy[1]) accuracyCovered += 1;
      }
      expect(kappaCovered).toBeGreaterThanOrEqual(93);
      expect(accuracyCovered).toBeGreaterThanOrEqual(93);
      // Intervals that always cover would pass too: they must also miss sometimes.
      expect(kappaCovered + accuracyCovered).toBeLessThan(200);
    });
  }
});

describe("rocAuc", () => {
  it("counts ties as half and is 1 for a perfect ranking, 0.5 for none", () => {
    expect(rocAuc({ scores: [0.9, 0.5, 0.5, 0.1], positives: [true, true, false, false] })).toBe(
      0.875,
    );
    expect(rocAuc({ scores: [1, 0.8, 0.2, 0], positives: [true, true, false, false] })).toBe(1);
    expect(rocAuc({ scores: [0, 0.2, 0.8, 1], positives: [true, true, false, false] })).toBe(0);
    expect(rocAuc({ scores: [0.5, 0.5, 0.5], positives: [true, false, false] })).toBe(0.5);
    // Positives 1, 0.5, 0.25 against negatives 0.5, 0, 1, pair by pair: 4 wins and 2 ties of 9.
    expect(
      rocAuc({
        scores: [1, 0.5, 0.25, 0.5, 0, 1],
        positives: [true, true, true, false, false, false],
      }),
    ).toBeCloseTo(5 / 9, 12);
  });

  it("is null without both classes and refuses unpaired input", () => {
    expect(rocAuc({ scores: [0.2, 0.4], positives: [true, true] })).toBeNull();
    expect(() => rocAuc({ scores: [0.2], positives: [] })).toThrow(/one label per score/);
  });
});

describe("midRanks", () => {
  it("gives tied values the mean of their ranks, within the tolerance, in the values' order", () => {
    expect(midRanks({ values: [0.5, 0.1, 0.5] })).toEqual({
      ranks: [2.5, 1, 2.5],
      tieSizes: [1, 2],
    });
    expect(midRanks({ values: [3, 1, 2, 1 + 1e-13], tolerance: 1e-12 })).toEqual({
      ranks: [4, 1.5, 3, 1.5],
      tieSizes: [2, 1, 1],
    });
    expect(midRanks({ values: [] })).toEqual({ ranks: [], tieSizes: [] });
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
