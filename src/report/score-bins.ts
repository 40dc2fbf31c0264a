import { metricsOfCase } from "../results/case-metrics.ts";
import type { TestResult } from "../results/evaluation-result.ts";

/** Score histograms have this many bins from 0 to 1. */
export const SCORE_BIN_COUNT = 10;

/**
 * How many scores fall in each of {@link SCORE_BIN_COUNT} bins from 0 to 1: `[i/10, (i+1)/10)`,
 * the last bin including 1; scores outside are clamped into the first or last bin.
 */
export function binScores(scores: readonly number[]): number[] {
  const counts = Array.from({ length: SCORE_BIN_COUNT }, () => 0);
  for (const score of scores) {
    // The epsilon keeps a score such as 0.3 (0.3 × 10 = 2.9999… in some sums) in its own bin.
    const bin = Math.min(
      SCORE_BIN_COUNT - 1,
      Math.max(0, Math.floor(score * SCORE_BIN_COUNT + 1e-9)),
    );
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  return counts;
}

/**
 * Each metric's scores over every trial of every case, and its threshold when all its results
 * had the same one (else `null`), by metric name in the order metrics first appear.
 */
export function metricDistributions(
  testResults: readonly TestResult[],
): Map<string, { scores: number[]; threshold: number | null }> {
  const found = new Map<string, { scores: number[]; thresholds: Set<number | null> }>();
  for (const result of testResults) {
    for (const metric of metricsOfCase(result)) {
      let entry = found.get(metric.name);
      if (entry === undefined) {
        entry = { scores: [], thresholds: new Set() };
        found.set(metric.name, entry);
      }
      if (metric.score !== null) entry.scores.push(metric.score);
      entry.thresholds.add(metric.threshold);
    }
  }
  return new Map(
    [...found].map(([name, { scores, thresholds }]) => {
      const [only] = thresholds;
      return [
        name,
        { scores, threshold: thresholds.size === 1 && only !== undefined ? only : null },
      ];
    }),
  );
}
