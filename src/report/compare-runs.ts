/**
 * Comparing two stored runs: what `verdict compare` prints and `verdict view` shows (the same
 * numbers, from the same function).
 */
import { type MetricStatus, metricStatus, metricsOfCase } from "../results/case-metrics.ts";
import type { MetricSummary, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import {
  type Interval,
  mcnemarExact,
  pairedBootstrap,
  wilcoxonSignedRank,
} from "../results/statistics.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import type { StoredRun } from "../store/run-store.ts";
import {
  formatCount,
  formatPassRate,
  formatPValue,
  formatRatePoints,
  formatScore,
  showControlCharacters,
  showName,
} from "./format.ts";
import { renderChangedOutputs } from "./render-changed-outputs.ts";

/** Which way a metric's score improves, as each result records it (`lowerIsBetter`). */
export type MetricDirection = "higher-is-better" | "lower-is-better";

/** A metric's verdict on one test case; `scored` means score-only (no threshold). */
export type MetricVerdict = "passed" | "failed" | "errored" | "scored";

/** A stored run and its test results. */
export interface RunWithResults {
  run: StoredRun;
  results: TestResult[];
}

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

/** Paired tests of one metric over the cases present in both runs. */
export interface PairedTests {
  /** Cases both runs have this metric on. */
  pairs: number;
  /** Pass/fail pairs (errors count as fails): the exact McNemar test. */
  passFail: { pairs: number; passToFail: number; failToPass: number; pValue: number } | null;
  /**
   * Scored pairs: the mean change (candidate − baseline, raw score units) with its 95% paired
   * bootstrap interval, and the Wilcoxon signed-rank p-value.
   */
  scores: { pairs: number; meanChange: number; interval: Interval; pValue: number } | null;
}

/** A test case whose verdict on a metric changed between the runs. */
export interface VerdictChange {
  testCase: string;
  metric: string;
  from: MetricVerdict;
  to: MetricVerdict;
  baselineScore: number | null;
  candidateScore: number | null;
  /** The case's `index` in each run (its key in `verdict view`). */
  baselineIndex: number;
  candidateIndex: number;
  /** The metric's reason (or error) in each run. */
  baselineReason: string | null;
  candidateReason: string | null;
  /** The case's `actualOutput` in each run: what the judge was shown. */
  baselineOutput: string | null;
  candidateOutput: string | null;
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

/** The significance level of `verdict compare` when none is given. */
export const DEFAULT_ALPHA = 0.05;

/** Summaries hold means of floats: equal runs must never count as worse by a rounding error. */
export const COMPARISON_TOLERANCE = 1e-9;
const TOLERANCE = COMPARISON_TOLERANCE;

/** How compare words each {@link MetricStatus}. */
const VERDICTS: Record<MetricStatus, MetricVerdict> = {
  passed: "passed",
  failed: "failed",
  errored: "errored",
  "score-only": "scored",
};

function verdictOf(data: MetricData): MetricVerdict {
  return VERDICTS[metricStatus(data)];
}

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
 * Cases of the two runs paired by identity: a name unique in both runs pairs by name, a name
 * repeated in a run pairs by position, a name only one run has stays unpaired.
 */
function pairCases(baseline: RunWithResults, candidate: RunWithResults) {
  const count = (results: TestResult[]) => {
    const counts = new Map<string, number>();
    for (const { name } of results) counts.set(name, (counts.get(name) ?? 0) + 1);
    return counts;
  };
  const inBaseline = count(baseline.results);
  const inCandidate = count(candidate.results);
  // A name in one run only has no counterpart (it is never paired by position); a name that
  // repeats in either run pairs by position.
  const keyOf = (result: TestResult, side: string) => {
    const [before, after] = [inBaseline.get(result.name) ?? 0, inCandidate.get(result.name) ?? 0];
    if (before === 1 && after === 1) return `name:${result.name}`;
    if (before === 0 || after === 0) return `only-${side}:${result.index}`;
    return `index:${result.index}`;
  };
  const candidates = new Map(
    candidate.results.map((result) => [keyOf(result, "candidate"), result]),
  );
  const pairs: Array<{ before: TestResult; after: TestResult }> = [];
  const unmatchedBaseline: string[] = [];
  const matched = new Set<TestResult>();
  for (const before of baseline.results) {
    const after = candidates.get(keyOf(before, "baseline"));
    if (after === undefined) {
      unmatchedBaseline.push(before.name);
      continue;
    }
    matched.add(after);
    pairs.push({ before, after });
  }
  const unmatchedCandidate = candidate.results
    .filter((result) => !matched.has(result))
    .map((result) => result.name);
  return { pairs, unmatched: { baseline: unmatchedBaseline, candidate: unmatchedCandidate } };
}

type CasePairs = ReturnType<typeof pairCases>["pairs"];

function findChanges(pairs: CasePairs): VerdictChange[] {
  const changes: VerdictChange[] = [];
  for (const { before, after } of pairs) {
    for (const old of before.metricsData) {
      const now = after.metricsData.find((data) => data.name === old.name);
      if (now === undefined || verdictOf(old) === verdictOf(now)) continue;
      changes.push({
        testCase: before.name,
        metric: old.name,
        from: verdictOf(old),
        to: verdictOf(now),
        baselineScore: old.score,
        candidateScore: now.score,
        baselineIndex: before.index,
        candidateIndex: after.index,
        baselineReason: old.reason ?? old.error,
        candidateReason: now.reason ?? now.error,
        baselineOutput: before.actualOutput,
        candidateOutput: after.actualOutput,
      });
    }
  }
  return changes;
}

/** The paired tests of metric `name` over the paired cases (first trial of each). */
function testPairs(pairs: CasePairs, name: string, lowerIsBetter: boolean): PairedTests {
  let both = 0;
  let passToFail = 0;
  let failToPass = 0;
  let passFailPairs = 0;
  const before: number[] = [];
  const after: number[] = [];
  for (const pair of pairs) {
    const old = pair.before.metricsData.find((data) => data.name === name);
    const now = pair.after.metricsData.find((data) => data.name === name);
    if (old === undefined || now === undefined) continue;
    both += 1;
    const [from, to] = [verdictOf(old), verdictOf(now)];
    if (from !== "scored" && to !== "scored") {
      passFailPairs += 1;
      if (from === "passed" && to !== "passed") passToFail += 1;
      if (from !== "passed" && to === "passed") failToPass += 1;
    }
    if (old.score !== null && now.score !== null) {
      before.push(old.score);
      after.push(now.score);
    }
  }
  const scores = pairedBootstrap({ before, after });
  return {
    pairs: both,
    passFail:
      passFailPairs === 0
        ? null
        : {
            pairs: passFailPairs,
            passToFail,
            failToPass,
            pValue: mcnemarExact({ passToFail, failToPass, alternative: "worse" }),
          },
    scores:
      scores === null
        ? null
        : {
            pairs: before.length,
            meanChange: scores.meanDifference,
            interval: scores.interval,
            pValue: wilcoxonSignedRank({
              before,
              after,
              alternative: lowerIsBetter ? "greater" : "less",
            }),
          },
  };
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
          `${text} (${pValue == null ? "no paired cases to test" : formatPValue(pValue)})`,
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

interface NumberFormat {
  value: (value: number | null) => string;
  delta: (delta: number) => string;
}
const SCORE: NumberFormat = { value: formatScore, delta: formatScore };
const RATE: NumberFormat = { value: formatPassRate, delta: formatRatePoints };
const BETTER: Record<MetricDirection, string> = {
  "higher-is-better": "higher",
  "lower-is-better": "lower",
};

function fromTo(old: number | null, now: number | null, format: NumberFormat): string {
  const text = `${format.value(old)} → ${format.value(now)}`;
  if (old === null || now === null) return text;
  const delta = now - old;
  if (Math.abs(delta) <= TOLERANCE) return `${text} (no change)`;
  return `${text} (${delta > 0 ? "+" : "-"}${format.delta(Math.abs(delta))})`;
}

function alignColumns(rows: string[][], indent = ""): string[] {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    `${indent}${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ")}`.trimEnd(),
  );
}

function describeRun(label: string, run: StoredRun): string {
  const identifier = run.identifier === null ? "" : ` "${showName(run.identifier)}"`;
  return `${label} ${showName(run.id)}${identifier} (${showName(run.startedAt)}, ${run.status})`;
}

/** The comparison as the text `verdict compare` prints. */
export function formatRunComparison(options: {
  baseline: StoredRun;
  candidate: StoredRun;
  comparison: RunComparison;
  maxDrop: number;
  /** Said under the header, e.g. that a run's process is gone and how to resume it. */
  notes?: readonly string[];
}): string {
  const { metrics, changes } = options.comparison;
  const lines = [
    `Comparing ${describeRun("baseline", options.baseline)}`,
    `     with ${describeRun("candidate", options.candidate)}`,
    ...(options.notes ?? []),
    ...[options.baseline, options.candidate].flatMap((run) =>
      run.status === "completed"
        ? []
        : [
            `Note: run ${showName(run.id)} is "${run.status}": its figures cover only the cases it finished.`,
          ],
    ),
    "",
    ...alignColumns([
      ["Metric", "Better", "Mean score", "Pass rate", ""],
      ...metrics.map((metric) => [
        showName(metric.name),
        BETTER[metric.direction],
        fromTo(metric.baseline?.meanScore ?? null, metric.candidate?.meanScore ?? null, SCORE),
        fromTo(metric.baseline?.passRate ?? null, metric.candidate?.passRate ?? null, RATE),
        metric.regressions.length > 0
          ? "WORSE"
          : metric.notSignificant.length > 0
            ? metric.notSignificant.every((text) => text.endsWith("(no paired cases to test)"))
              ? "untested"
              : "within noise"
            : "",
      ]),
    ]),
  ];
  const { alpha, unmatched } = options.comparison;
  if (alpha !== null) {
    lines.push(
      "",
      `Paired one-sided tests of "worse" over the cases in both runs (significant when p < ${alpha}, Holm-adjusted over a metric's two tests):`,
      ...alignColumns(
        metrics.map((metric) => [
          showName(metric.name),
          describePassFail(metric.tests),
          describeScores(metric.tests),
        ]),
        "  ",
      ),
    );
  }
  for (const [label, names] of [
    ["baseline", unmatched.baseline],
    ["candidate", unmatched.candidate],
  ] as const) {
    if (names.length === 0) continue;
    const shown = names.slice(0, MAX_UNMATCHED_SHOWN).map((name) => `"${showName(name)}"`);
    const more =
      names.length > shown.length ? `, and ${formatCount(names.length - shown.length)} more` : "";
    lines.push(
      "",
      `Only in the ${label} (${formatCount(names.length)}, not compared): ${shown.join(", ")}${more}`,
    );
  }
  lines.push(
    "",
    changes.length === 0
      ? "No test case changed verdict."
      : `Test cases that changed verdict (${formatCount(changes.length)}):`,
    ...alignColumns(
      changes.map((item) => [
        showName(item.testCase),
        showName(item.metric),
        `${item.from} → ${item.to}`,
        `score ${formatScore(item.baselineScore)} → ${formatScore(item.candidateScore)}`,
      ]),
      "  ",
    ),
    "",
    ...renderChangedOutputs(changes),
  );
  const regressed = metrics.filter((metric) => metric.regressions.length > 0);
  const significantly = alpha === null ? "" : `, significantly (p < ${alpha})`;
  const noisy = metrics.filter((metric) => metric.notSignificant.length > 0);
  if (noisy.length > 0) {
    lines.push(
      `Worse by more than --max-drop ${options.maxDrop} but not significant (within the judge's noise, or no paired cases to test it on):`,
      ...noisy.map((metric) => `  ${showName(metric.name)}: ${metric.notSignificant.join(", ")}`),
    );
  }
  if (regressed.length === 0) {
    lines.push(`No metric got worse by more than --max-drop ${options.maxDrop}${significantly}.`);
  } else {
    lines.push(`Regression: worse by more than --max-drop ${options.maxDrop}${significantly}:`);
    for (const metric of regressed) {
      lines.push(`  ${showName(metric.name)}: ${metric.regressions.join(", ")}`);
    }
  }
  // Whatever else a line quotes from the runs (notes) is shown too: the output has no colours.
  return `${showControlCharacters(lines.join("\n"))}\n`;
}

/** Unmatched case names listed per run, at most. */
const MAX_UNMATCHED_SHOWN = 10;

function describePassFail(tests: PairedTests | null): string {
  const passFail = tests?.passFail;
  if (!passFail) return "pass/fail: no paired verdicts";
  return `pass/fail over ${formatCount(passFail.pairs)}: ${formatCount(passFail.passToFail)} pass→fail, ${formatCount(passFail.failToPass)} fail→pass, ${formatPValue(passFail.pValue)} (McNemar)`;
}

function describeScores(tests: PairedTests | null): string {
  const scores = tests?.scores;
  if (!scores) return "scores: no paired scores";
  const signed = (value: number) => `${value >= 0 ? "+" : "-"}${Math.abs(value).toFixed(3)}`;
  return `scores over ${formatCount(scores.pairs)}: ${signed(scores.meanChange)} [${signed(scores.interval[0])}, ${signed(scores.interval[1])}], ${formatPValue(scores.pValue)}`;
}
