/**
 * Comparing two stored runs: what `verdict compare` prints and `verdict view` shows (the same
 * numbers, from the same function).
 */
import { metricsOfCase } from "../results/case-metrics.ts";
import type { MetricSummary } from "../results/evaluation-result.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import { findChanges, type VerdictChange } from "./find-changes.ts";
import { formatPassRate, formatPValue, formatScore } from "./format.ts";
import { pairCases } from "./pair-cases.ts";
import { type PairedTests, testPairs } from "./paired-tests.ts";
import type { RunWithResults } from "./run-with-results.ts";

/** Which way a metric's score improves, as each result records it (`lowerIsBetter`). */
export type MetricDirection = "higher-is-better" | "lower-is-better";

/** One metric across two runs. */
export interface MetricComparison {
  name: string;
  direction: MetricDirection;
  baseline: MetricSummary | null;
  candidate: MetricSummary | null;
  /**
   * What got worse beyond `maxDrop` — and, with statistics on, significantly (p < `alpha`) —
   * e.g. `"pass rate 100.0% → 50.0% (p = 0.002)"`; empty when nothing did.
   */
  regressions: string[];
  /** Changes beyond `maxDrop` that are not significant: worse, but within the judge's noise. */
  notSignificant: string[];
  /** The paired tests over the cases both runs scored; `null` with statistics off. */
  tests: PairedTests | null;
}

/**
 * How a metric's changes that are not regressions read: `"untested"` when none could be tested
 * (no case scored in both runs), else `"within noise"`; `null` when there are none.
 */
export function notSignificantLabel(metric: MetricComparison): "untested" | "within noise" | null {
  if (metric.notSignificant.length === 0) return null;
  return metric.notSignificant.every((text) => text.endsWith(UNTESTED_SUFFIX))
    ? "untested"
    : "within noise";
}

/** What {@link compareRuns} found. */
export interface RunComparison {
  metrics: MetricComparison[];
  changes: VerdictChange[];
  regressed: boolean;
  /** Cases of one run with no counterpart in the other (by name, else position). */
  unmatched: { baseline: string[]; candidate: string[] };
  /** The significance level the regressions were tested at; `null` with statistics off. */
  alpha: number | null;
}

/** What ends a change that could not be tested (no case scored in both runs). */
const UNTESTED_SUFFIX = "(no paired cases to test)";

/** The significance level of `verdict compare` when none is given. */
export const DEFAULT_ALPHA = 0.05;

/** Summaries hold means of floats: equal runs must never count as worse by a rounding error. */
export const COMPARISON_TOLERANCE = 1e-9;
const TOLERANCE = COMPARISON_TOLERANCE;

function metricSummaries(entry: RunWithResults): MetricSummary[] {
  if (entry.run.summary !== null) return entry.run.summary.metrics;
  const zero = { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: null };
  return summarizeRun({
    status: entry.run.status,
    testResults: entry.results,
    total: entry.results.length,
    spending: { ...zero, cacheHits: 0, sharedCalls: 0, saved: zero },
    durationMs: 0,
  }).metrics;
}

/**
 * Holm's step-down correction: which of the p-values (`null`: no test) are significant while
 * the chance of any false alarm among them stays at `alpha`. A metric is tested twice (pass/fail
 * and scores), and either may fail the comparison.
 */
function holm(options: { pValues: Array<number | null>; alpha: number }): boolean[] {
  const present = options.pValues
    .map((pValue, position) => ({ pValue, position }))
    .filter((entry): entry is { pValue: number; position: number } => entry.pValue !== null)
    .sort((a, b) => a.pValue - b.pValue);
  const significant = options.pValues.map(() => false);
  for (const [rank, entry] of present.entries()) {
    if (entry.pValue >= options.alpha / (present.length - rank)) break;
    significant[entry.position] = true;
  }
  return significant;
}

/**
 * Compares two runs metric by metric. A metric regressed when its pass rate dropped, or its
 * mean score moved the wrong way (the metric's own `lowerIsBetter`), by more than `maxDrop`
 * — and, with statistics on (the default), when that change is also significant at `alpha` in
 * a paired test over the cases both runs have: the exact McNemar test on pass/fail, the
 * Wilcoxon signed-rank test on scores. A change beyond `maxDrop` that is not significant is listed in
 * `notSignificant`. A metric present in only one run is shown but is not a regression.
 */
export function compareRuns(options: {
  baseline: RunWithResults;
  candidate: RunWithResults;
  maxDrop: number;
  /** Significance level; `null` turns the statistics off (the plain `maxDrop` rule). @default 0.05 */
  alpha?: number | null;
}): RunComparison {
  const { baseline, candidate, maxDrop } = options;
  const alpha = options.alpha === undefined ? DEFAULT_ALPHA : options.alpha;
  const { pairs, unmatched } = pairCases(baseline, candidate);
  const before = metricSummaries(baseline);
  const after = metricSummaries(candidate);
  const names = [...new Set([...before, ...after].map((summary) => summary.name))];
  const metrics = names.map((name): MetricComparison => {
    const old = before.find((summary) => summary.name === name) ?? null;
    const now = after.find((summary) => summary.name === name) ?? null;
    // A result's own lowerIsBetter first (inferred for results stored before it existed),
    // then the summary's.
    const recorded = [...candidate.results, ...baseline.results]
      .flatMap(metricsOfCase)
      .find((data) => data.name === name);
    const lowerIsBetter = recorded?.lowerIsBetter ?? (now ?? old)?.lowerIsBetter ?? false;
    const direction: MetricDirection = lowerIsBetter ? "lower-is-better" : "higher-is-better";
    const tests = alpha === null ? null : testPairs(pairs, name, lowerIsBetter);
    const regressions: string[] = [];
    const notSignificant: string[] = [];
    const significant = holm({
      pValues: [tests?.passFail?.pValue ?? null, tests?.scores?.pValue ?? null],
      alpha: alpha ?? 0,
    });
    /** Files a change beyond maxDrop as a regression, or as not significant. */
    const file = (text: string, pValue: number | null | undefined, test: 0 | 1) => {
      if (alpha === null) regressions.push(text);
      else if (pValue != null && significant[test])
        regressions.push(`${text} (${formatPValue(pValue)})`);
      else {
        notSignificant.push(
          `${text} ${pValue == null ? UNTESTED_SUFFIX : `(${formatPValue(pValue)})`}`,
        );
      }
    };
    if (old?.passRate != null && now?.passRate != null) {
      if (old.passRate - now.passRate > maxDrop + TOLERANCE) {
        file(
          `pass rate ${formatPassRate(old.passRate)} → ${formatPassRate(now.passRate)}`,
          tests?.passFail?.pValue,
          0,
        );
      }
    }
    if (old?.meanScore != null && now?.meanScore != null) {
      const worse =
        direction === "lower-is-better"
          ? now.meanScore - old.meanScore
          : old.meanScore - now.meanScore;
      if (worse > maxDrop + TOLERANCE) {
        const better = direction === "lower-is-better" ? "lower" : "higher";
        file(
          `mean score ${formatScore(old.meanScore)} → ${formatScore(now.meanScore)} (${better} is better)`,
          tests?.scores?.pValue,
          1,
        );
      }
    }
    return { name, direction, baseline: old, candidate: now, regressions, notSignificant, tests };
  });
  return {
    metrics,
    changes: findChanges(pairs),
    regressed: metrics.some((metric) => metric.regressions.length > 0),
    unmatched,
    alpha,
  };
}
