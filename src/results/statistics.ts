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
  // At 0 or all successes the bound is exactly 0 or 1 (not 1 - 1e-16 from rounding).
  return [
    successes === 0 ? 0 : Math.max(0, centre - half),
    successes === trials ? 1 : Math.min(1, centre + half),
  ];
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

/**
 * Cohen's κ of two raters (here: people and the judge) from their confusion matrix, with a
 * 95% interval from the large-sample standard error of Fleiss, Cohen and Everitt (1969), the
 * one SPSS, R's `psych::cohen.kappa` and most textbooks use. Analytic rather than bootstrapped:
 * it is exact arithmetic on the four (or k²) counts, so a report never changes with a seed or
 * the number of resamples, it costs nothing at any size, and its coverage at the sizes people
 * calibrate with (100 rows and up) is close to 95% (see statistics.test.ts). `matrix[i][j]`
 * counts the items people put in class `i` and the judge in class `j`. `kappa` is `null` when
 * it is undefined: no items, or both raters always give the same one class (chance agreement 1).
 * `interval` is also `null` when the standard error is 0 — perfect agreement, or a rater who
 * always gives the same class — where a zero-width interval would claim a certainty that the
 * sample cannot give.
 * @example
 * cohensKappa({ matrix: [[45, 5], [10, 40]] }); // { kappa: 0.7, interval: [0.56, 0.84], … }
 */
export function cohensKappa(options: { matrix: readonly (readonly number[])[] }): {
  kappa: number | null;
  standardError: number | null;
  interval: Interval | null;
} {
  const { matrix } = options;
  const classes = matrix.length;
  if (matrix.some((row) => row.length !== classes)) {
    throw new RangeError(
      `cohensKappa needs a square matrix: got ${classes} rows of other lengths.`,
    );
  }
  const cell = (row: number, column: number) => matrix[row]?.[column] ?? 0;
  let n = 0;
  for (let row = 0; row < classes; row++)
    for (let column = 0; column < classes; column++) n += cell(row, column);
  const none = { kappa: null, standardError: null, interval: null };
  if (n <= 0) return none;
  const p = (row: number, column: number) => cell(row, column) / n;
  const rowShare = Array.from({ length: classes }, (_, row) => {
    let sum = 0;
    for (let column = 0; column < classes; column++) sum += p(row, column);
    return sum;
  });
  const columnShare = Array.from({ length: classes }, (_, column) => {
    let sum = 0;
    for (let row = 0; row < classes; row++) sum += p(row, column);
    return sum;
  });
  let observed = 0;
  let chance = 0;
  for (let index = 0; index < classes; index++) {
    observed += p(index, index);
    chance += (rowShare[index] as number) * (columnShare[index] as number);
  }
  if (chance >= 1 - 1e-12) return none;
  const kappa = (observed - chance) / (1 - chance);
  // Fleiss, Cohen & Everitt (1969), Psychological Bulletin 72(5): the variance of κ̂ when κ ≠ 0.
  let sum = 0;
  for (let row = 0; row < classes; row++) {
    for (let column = 0; column < classes; column++) {
      const share = p(row, column);
      if (row === column) {
        const margins = (rowShare[row] as number) + (columnShare[row] as number);
        sum += share * (1 - margins * (1 - kappa)) ** 2;
      } else {
        const margins = (columnShare[row] as number) + (rowShare[column] as number);
        sum += (1 - kappa) ** 2 * share * margins ** 2;
      }
    }
  }
  sum -= (kappa - chance * (1 - kappa)) ** 2;
  const standardError = Math.sqrt(Math.max(0, sum) / n) / (1 - chance);
  const constantRater = [...rowShare, ...columnShare].some((share) => share > 1 - 1e-12);
  if (observed > 1 - 1e-12 || constantRater) return { kappa, standardError: 0, interval: null };
  return {
    kappa,
    standardError,
    interval: [
      Math.max(-1, kappa - Z_95 * standardError),
      Math.min(1, kappa + Z_95 * standardError),
    ],
  };
}

/**
 * The ranks of `values` from 1, in their own order, tied values sharing the mean of their
 * ranks (mid-ranks); values within `tolerance` of the first of a run count as tied. Also the
 * size of each run of ties, for tie corrections.
 * @example
 * midRanks({ values: [0.5, 0.1, 0.5] }); // { ranks: [2.5, 1, 2.5], tieSizes: [1, 2] }
 */
export function midRanks(options: { values: readonly number[]; tolerance?: number }): {
  ranks: number[];
  tieSizes: number[];
} {
  const { values } = options;
  const tolerance = options.tolerance ?? 0;
  const order = values
    .map((value, position) => ({ value, position }))
    .sort((left, right) => left.value - right.value);
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  for (let start = 0; start < order.length; ) {
    const first = (order[start] as { value: number }).value;
    let end = start;
    while (
      end + 1 < order.length &&
      (order[end + 1] as { value: number }).value - first <= tolerance
    )
      end += 1;
    // Ranks start + 1 … end + 1 share their mean.
    const midRank = (start + end + 2) / 2;
    for (let index = start; index <= end; index++) {
      ranks[(order[index] as { position: number }).position] = midRank;
    }
    tieSizes.push(end - start + 1);
    start = end + 1;
  }
  return { ranks, tieSizes };
}

/**
 * The area under the ROC curve of `scores` for telling `positives` from the rest: the chance
 * that a random positive item scores higher than a random negative one, a tie counting half
 * (the Mann–Whitney U statistic over n₁·n₀, computed with mid-ranks). `null` when either
 * class is empty. Scores are oriented so that higher means "more positive".
 * @example
 * rocAuc({ scores: [0.9, 0.5, 0.5, 0.1], positives: [true, true, false, false] }); // 0.875
 */
export function rocAuc(options: {
  scores: readonly number[];
  positives: readonly boolean[];
}): number | null {
  const { scores, positives } = options;
  if (scores.length !== positives.length) {
    throw new RangeError(
      `rocAuc needs one label per score: got ${scores.length} scores and ${positives.length} labels.`,
    );
  }
  const positiveCount = positives.filter((positive) => positive).length;
  const negativeCount = positives.length - positiveCount;
  if (positiveCount === 0 || negativeCount === 0) return null;
  const { ranks } = midRanks({ values: scores });
  let positiveRankSum = 0;
  for (const [position, rank] of ranks.entries()) {
    if (positives[position]) positiveRankSum += rank;
  }
  const u = positiveRankSum - (positiveCount * (positiveCount + 1)) / 2;
  return u / (positiveCount * negativeCount);
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
  // Doubled mid-ranks (2, 4, …; ties share their average, which doubled is whole).
  const { ranks, tieSizes } = midRanks({
    values: differences.map((difference) => Math.abs(difference)),
    tolerance: 1e-12,
  });
  const doubledRanks = ranks.map((rank) => 2 * rank);
  let tieCorrection = 0;
  for (const ties of tieSizes) tieCorrection += ties * ties * ties - ties;
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
