/**
 * Comparing two stored runs: what `verdict compare` prints and `verdict view` shows (the same
 * numbers, from the same function).
 */
import { type MetricStatus, metricStatus, metricsOfCase } from "../results/case-metrics.ts";
import type { MetricSummary, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import type { StoredRun } from "../store/run-store.ts";
import { formatCount, formatPassRate, formatRatePoints, formatScore } from "./format.ts";

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
  /** What got worse beyond `maxDrop`, e.g. `"pass rate 100.0% → 50.0%"`; empty when nothing did. */
  regressions: string[];
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
}

/** What {@link compareRuns} found. */
export interface RunComparison {
  metrics: MetricComparison[];
  changes: VerdictChange[];
  regressed: boolean;
}

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

function findChanges(baseline: RunWithResults, candidate: RunWithResults): VerdictChange[] {
  const count = (results: TestResult[]) => {
    const counts = new Map<string, number>();
    for (const { name } of results) counts.set(name, (counts.get(name) ?? 0) + 1);
    return counts;
  };
  const inBaseline = count(baseline.results);
  const inCandidate = count(candidate.results);
  // A name matches a case across runs only when it is unique in both; otherwise its position does.
  const keyOf = (result: TestResult) =>
    inBaseline.get(result.name) === 1 && inCandidate.get(result.name) === 1
      ? `name:${result.name}`
      : `index:${result.index}`;
  const candidates = new Map(candidate.results.map((result) => [keyOf(result), result]));
  const changes: VerdictChange[] = [];
  for (const before of baseline.results) {
    const after = candidates.get(keyOf(before));
    if (after === undefined) continue;
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
      });
    }
  }
  return changes;
}

/**
 * Compares two runs metric by metric. A metric regressed when its pass rate dropped, or its
 * mean score moved the wrong way (the metric's own `lowerIsBetter`), by more than `maxDrop`.
 * A metric present in only one run is shown but is not a regression.
 */
export function compareRuns(options: {
  baseline: RunWithResults;
  candidate: RunWithResults;
  maxDrop: number;
}): RunComparison {
  const { baseline, candidate, maxDrop } = options;
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
    const regressions: string[] = [];
    if (old?.passRate != null && now?.passRate != null) {
      if (old.passRate - now.passRate > maxDrop + TOLERANCE) {
        regressions.push(
          `pass rate ${formatPassRate(old.passRate)} → ${formatPassRate(now.passRate)}`,
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
        regressions.push(
          `mean score ${formatScore(old.meanScore)} → ${formatScore(now.meanScore)} (${better} is better)`,
        );
      }
    }
    return { name, direction, baseline: old, candidate: now, regressions };
  });
  return {
    metrics,
    changes: findChanges(baseline, candidate),
    regressed: metrics.some((metric) => metric.regressions.length > 0),
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
  const identifier = run.identifier === null ? "" : ` "${run.identifier}"`;
  return `${label} ${run.id}${identifier} (${run.startedAt}, ${run.status})`;
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
        : [`Note: run ${run.id} is "${run.status}": its figures cover only the cases it finished.`],
    ),
    "",
    ...alignColumns([
      ["Metric", "Better", "Mean score", "Pass rate", ""],
      ...metrics.map((metric) => [
        metric.name,
        BETTER[metric.direction],
        fromTo(metric.baseline?.meanScore ?? null, metric.candidate?.meanScore ?? null, SCORE),
        fromTo(metric.baseline?.passRate ?? null, metric.candidate?.passRate ?? null, RATE),
        metric.regressions.length > 0 ? "WORSE" : "",
      ]),
    ]),
  ];
  lines.push(
    "",
    changes.length === 0
      ? "No test case changed verdict."
      : `Test cases that changed verdict (${formatCount(changes.length)}):`,
    ...alignColumns(
      changes.map((item) => [
        item.testCase,
        item.metric,
        `${item.from} → ${item.to}`,
        `score ${formatScore(item.baselineScore)} → ${formatScore(item.candidateScore)}`,
      ]),
      "  ",
    ),
    "",
  );
  const regressed = metrics.filter((metric) => metric.regressions.length > 0);
  if (regressed.length === 0) {
    lines.push(`No metric got worse by more than --max-drop ${options.maxDrop}.`);
  } else {
    lines.push(`Regression: worse by more than --max-drop ${options.maxDrop}:`);
    for (const metric of regressed) {
      lines.push(`  ${metric.name}: ${metric.regressions.join(", ")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
