/**
 * The statistics behind verdict's intervals and regression tests: Wilson intervals for rates,
 * seeded bootstrap intervals for means, the exact McNemar test for paired pass/fail, the
 * Wilcoxon signed-rank test and a paired bootstrap interval for paired scores. simple-statistics supplies quantiles and binomial
 * probabilities; what it lacks (the Wilson interval, a seeded generator, the paired tests) is
 * written here, each a few lines of textbook formula.
 */

import { binomialDistribution, errorFunction, quantileSorted } from "simple-statistics";

/** A two-sided 95% interval, `[low, high]`. */
export type Interval = [number, number];

/** z for a two-sided 95% interval (Φ⁻¹(0.975)). */
export const Z_95 = 1.959963984540054;

/** Bootstrap resamples for intervals and paired tests: enough for stable 95% bounds. */
export const BOOTSTRAP_RESAMPLES = 2000;

/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same intervals, so a
 * report does not change between two reads of the same run.
 * @example
 * const random = seededRandom(42); random(); // 0 <= x < 1
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed from numbers, so that a run's intervals depend on its scores only. */
export function seedOf(values: readonly number[]): number {
  let hash = 2166136261;
  for (const value of values) {
    hash ^= Math.round(value * 1e6);
    hash = Math.imul(hash, 16777619);
  }
  return hash >>> 0;
}

/**
 * The Wilson score interval of `successes` out of `trials` (95%): well-behaved at 0, 1 and
 * small counts, where the normal approximation is not. `null` for no trials.
 * @example
 * wilsonInterval({ successes: 9, trials: 10 }); // [0.596, 0.982]
 */
export function wilsonInterval(options: { successes: number; trials: number }): Interval | null {
  const { successes, trials } = options;
  if (trials <= 0) return null;
  const z2 = Z_95 * Z_95;
  const p = successes / trials;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half =
    (Z_95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * A percentile bootstrap interval (95%) of the mean of `values`, seeded by the values
 * themselves unless a seed is given. One value gives `[value, value]`; none gives `null`.
 * @example
 * bootstrapMeanInterval({ values: [0.2, 0.4, 0.9] });
 */
export function bootstrapMeanInterval(options: {
  values: readonly number[];
  seed?: number;
  resamples?: number;
}): Interval | null {
  const { values } = options;
  const n = values.length;
  if (n === 0) return null;
  if (n === 1) return [values[0] as number, values[0] as number];
  const random = seededRandom(options.seed ?? seedOf(values));
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const means = new Float64Array(resamples);
  for (let resample = 0; resample < resamples; resample++) {
    let sum = 0;
    for (let draw = 0; draw < n; draw++) sum += values[Math.floor(random() * n)] as number;
    means[resample] = sum / n;
  }
  means.sort();
  const sorted = Array.from(means);
  return [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
}

/**
 * The exact (binomial) McNemar test on paired pass/fail outcomes: of the pairs that changed,
 * `passToFail` went from pass to fail and `failToPass` the other way. Two-sided by default;
 * `"worse"` is the one-sided mid-p value that pass→fail outnumbers fail→pass by chance alone
 * (1 when nothing changed).
 * @example
 * mcnemarExact({ passToFail: 12, failToPass: 2 }); // 0.013
 * mcnemarExact({ passToFail: 12, failToPass: 2, alternative: "worse" }); // 0.0037
 */
export function mcnemarExact(options: {
  passToFail: number;
  failToPass: number;
  alternative?: "two-sided" | "worse";
}): number {
  const { passToFail, failToPass } = options;
  const discordant = passToFail + failToPass;
  if (discordant === 0) return 1;
  const probabilities = binomialDistribution(discordant, 0.5) ?? [];
  const atMost = (k: number) => {
    let tail = 0;
    for (let count = 0; count <= k; count++) tail += probabilities[count] ?? 0;
    return tail;
  };
  // P(pass→fail >= observed) = P(fail→pass <= observed fail→pass), by symmetry; the mid-p
  // (half the observed outcome's own probability) corrects the exact test's conservatism.
  if (options.alternative === "worse") {
    return Math.min(1, atMost(failToPass) - 0.5 * (probabilities[failToPass] ?? 0));
  }
  return Math.min(1, 2 * atMost(Math.min(passToFail, failToPass)));
}

/**
 * A paired bootstrap test of the mean difference `after − before` (same length, paired by
 * position): the 95% interval of the mean difference and a two-sided p-value (how often the
 * resampled mean crosses zero, doubled). Seeded by the data unless a seed is given.
 * @example
 * pairedBootstrap({ before: [0.9, 0.8, 0.7], after: [0.6, 0.5, 0.7] });
 */
export function pairedBootstrap(options: {
  before: readonly number[];
  after: readonly number[];
  seed?: number;
  resamples?: number;
}): { meanDifference: number; interval: Interval; pValue: number } | null {
  const { before, after } = options;
  if (before.length !== after.length) {
    throw new RangeError(
      `pairedBootstrap needs paired values: got ${before.length} before and ${after.length} after.`,
    );
  }
  const n = before.length;
  if (n === 0) return null;
  const differences = before.map((value, position) => (after[position] as number) - value);
  const meanDifference = differences.reduce((sum, value) => sum + value, 0) / n;
  if (differences.every((value) => value === differences[0])) {
    return {
      meanDifference,
      interval: [meanDifference, meanDifference],
      pValue: meanDifference === 0 ? 1 : 0,
    };
  }
  const random = seededRandom(options.seed ?? seedOf(differences));
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const means = new Float64Array(resamples);
  let atOrBelowZero = 0;
  let atOrAboveZero = 0;
  for (let resample = 0; resample < resamples; resample++) {
    let sum = 0;
    for (let draw = 0; draw < n; draw++) sum += differences[Math.floor(random() * n)] as number;
    const mean = sum / n;
    means[resample] = mean;
    if (mean <= 0) atOrBelowZero += 1;
    if (mean >= 0) atOrAboveZero += 1;
  }
  means.sort();
  const sorted = Array.from(means);
  // The share of resampled means on the far side of zero, both tails (+1 smoothing so that a
  // finite number of resamples never claims p = 0).
  const tail = Math.min(atOrBelowZero, atOrAboveZero);
  const pValue = Math.min(1, (2 * (tail + 1)) / (resamples + 1));
  return {
    meanDifference,
    interval: [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)],
    pValue,
  };
}

/** Pairs up to which the signed-rank test is exact (above, the normal approximation). */
const EXACT_SIGNED_RANK_MAX = 50;

/**
 * The Wilcoxon signed-rank test of paired differences `after − before`: the two-sided p-value
 * that the differences are centred on zero. Zero differences are dropped; tied magnitudes get
 * their average rank. Exact up to 50 non-zero pairs (ranks doubled to stay whole with ties),
 * the normal approximation with tie and continuity corrections above. Unlike a bootstrap it
 * stays honest for a handful of pairs: 3 pairs all worse give p = 0.25, not 0.
 * @example
 * wilcoxonSignedRank({ before: [0.9, 0.8, 0.7], after: [0.6, 0.5, 0.4] }); // 0.25
 */
export function wilcoxonSignedRank(options: {
  before: readonly number[];
  after: readonly number[];
  /**
   * `"less"`: one-sided, that `after` tends to be lower; `"greater"`: higher.
   * @default "two-sided"
   */
  alternative?: "two-sided" | "less" | "greater";
}): number {
  const alternative = options.alternative ?? "two-sided";
  const { before, after } = options;
  if (before.length !== after.length) {
    throw new RangeError(
      `wilcoxonSignedRank needs paired values: got ${before.length} before and ${after.length} after.`,
    );
  }
  const differences = before
    .map((value, position) => (after[position] as number) - value)
    .filter((difference) => Math.abs(difference) > 1e-12);
  const n = differences.length;
  if (n === 0) return 1;
  const order = differences
    .map((difference, position) => ({ size: Math.abs(difference), position }))
    .sort((a, b) => a.size - b.size);
  // Doubled ranks (2, 4, …; ties share their average, which doubled is whole).
  const doubledRanks = new Array<number>(n);
  let tieCorrection = 0;
  for (let start = 0; start < n; ) {
    let end = start;
    while (
      end + 1 < n &&
      (order[end + 1] as { size: number }).size - (order[start] as { size: number }).size <= 1e-12
    )
      end += 1;
    const doubled = start + end + 2; // 2 × the average of ranks start+1 … end+1
    for (let k = start; k <= end; k++)
      doubledRanks[(order[k] as { position: number }).position] = doubled;
    const ties = end - start + 1;
    tieCorrection += ties * ties * ties - ties;
    start = end + 1;
  }
  let positiveDoubled = 0;
  for (let position = 0; position < n; position++) {
    if ((differences[position] as number) > 0) positiveDoubled += doubledRanks[position] as number;
  }
  const totalDoubled = n * (n + 1);
  if (n <= EXACT_SIGNED_RANK_MAX) {
    // Distribution of the doubled positive rank sum: each rank is in or out with probability ½.
    let ways = new Float64Array(totalDoubled + 1);
    ways[0] = 1;
    for (const rank of doubledRanks) {
      const next = new Float64Array(totalDoubled + 1);
      for (let sum = 0; sum <= totalDoubled; sum++) {
        const count = ways[sum] as number;
        if (count === 0) continue;
        next[sum] = (next[sum] as number) + count / 2;
        next[sum + rank] = (next[sum + rank] as number) + count / 2;
      }
      ways = next;
    }
    const atMost = (limit: number) => {
      let tail = 0;
      for (let sum = 0; sum <= limit; sum++) tail += ways[sum] as number;
      return tail;
    };
    // "less": few positive ranks; "greater": many (= few negative ones).
    if (alternative === "less") return Math.min(1, atMost(positiveDoubled));
    if (alternative === "greater") return Math.min(1, atMost(totalDoubled - positiveDoubled));
    return Math.min(1, 2 * atMost(Math.min(positiveDoubled, totalDoubled - positiveDoubled)));
  }
  const positive = positiveDoubled / 2;
  const mean = (n * (n + 1)) / 4;
  const variance = (n * (n + 1) * (2 * n + 1)) / 24 - tieCorrection / 48;
  if (variance <= 0) return 1;
  const sd = Math.sqrt(variance);
  // From erf, not simple-statistics' normal table (two decimals of z, floored at 0.001).
  const upper = (z: number) => 0.5 * (1 - errorFunction(z / Math.SQRT2));
  if (alternative === "less") return Math.min(1, upper((mean - positive - 0.5) / sd));
  if (alternative === "greater") return Math.min(1, upper((positive - mean - 0.5) / sd));
  const z = (Math.abs(positive - mean) - 0.5) / sd;
  return Math.min(1, 2 * upper(Math.max(0, z)));
}
