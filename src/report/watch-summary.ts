import { type CaseStatus, caseStatus } from "../results/case-metrics.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE, usesFakeJudge } from "../results/fake-judge-notice.ts";
import { summarizeMetrics } from "../results/summarize-run.ts";
import { formatCostUsd, formatCount, formatPlural, formatScore, showName } from "./format.ts";

/** Flipped cases listed one per line at most; the rest are counted. */
const MAX_FLIPS_LISTED = 10;

/** Options of {@link describeWatchRun}. */
export interface DescribeWatchRunOptions {
  /** The run's number in the watch session, from 1. */
  run: number;
  /** Why it ran, e.g. `"evals/faq.eval.ts changed"`; `null` for the first run. */
  reason: string | null;
  /** The test files it ran (relative to the project). */
  files: readonly string[];
  /** What it stored: its cases and what it spent. */
  result: EvaluationResult;
  /** The suite's latest result of every case before this run (each file's last run). */
  before: readonly TestResult[];
  /** The same after this run: the files it ran replaced by what it found. */
  after: readonly TestResult[];
}

/**
 * The compact summary `verdict test run --watch` prints after each run: what ran and why, the
 * judge calls it paid (the cache answers unchanged cases), the cases whose outcome flipped
 * between passed and failed since their previous run, and each metric's mean over the whole
 * suite before → after (every file at its latest run, so a re-run of one file moves the suite's
 * figure by what that file changed). Scores of the fake judge are said to be not real.
 * @example
 * describeWatchRun({ run: 2, reason: "evals/faq.eval.ts changed", files: ["evals/faq.eval.ts"], result, before, after });
 * // Run 2 · evals/faq.eval.ts changed · 1 file re-run: 4 cases, 3 passed, 1 failed
 * //   Judge calls: 2 paid ($0.0011), 10 cache hits, 0 shared
 * //   Flipped: "refund after 30 days" (evals/faq.eval.ts) passed → failed
 * //   Means over the suite: Answer Relevancy 0.92 → 0.81 · Toxicity 0.00 (=)
 */
export function describeWatchRun(options: DescribeWatchRunOptions): string {
  const { summary } = options.result;
  const cases = summary.testCases;
  const why = options.reason === null ? "" : ` · ${showName(options.reason)}`;
  const ran =
    options.run === 1
      ? formatPlural(options.files.length, "file")
      : `${formatPlural(options.files.length, "file")} re-run`;
  const counts = [
    formatPlural(cases.total, "case"),
    `${cases.passed} passed`,
    `${cases.failed} failed`,
    ...(cases.unscored > 0 ? [`${cases.unscored} unscored`] : []),
  ].join(", ");
  const lines = [`Run ${options.run}${why} · ${ran}: ${counts}`];
  // Worded as the end report's "Judge calls:" line; what the cache saved is the point here.
  const cost = summary.costUsd === 0 ? "" : ` (${formatCostUsd(summary.costUsd)})`;
  lines.push(
    `  Judge calls: ${formatCount(summary.judgeCalls)} paid${cost}, ${formatCount(summary.cacheHits)} cache hits, ${formatCount(summary.sharedCalls)} shared`,
  );
  if (options.run > 1) lines.push(...describeFlips(options.before, options.after));
  const means = describeMeans(options);
  if (means !== null) lines.push(`  Means over the suite: ${means}`);
  if (usesFakeJudge(options.result.testResults)) lines.push(`  ! ${FAKE_JUDGE_NOTICE}`);
  return lines.join("\n");
}

/** A case's identity across runs: its file, its name, and which of that name it is. */
function keyedByCase(results: readonly TestResult[]): Map<string, TestResult> {
  const keyed = new Map<string, TestResult>();
  const seen = new Map<string, number>();
  for (const result of results) {
    const name = `${result.file ?? ""}\u0000${result.name}`;
    const occurrence = seen.get(name) ?? 0;
    seen.set(name, occurrence + 1);
    keyed.set(`${name}\u0000${occurrence}`, result);
  }
  return keyed;
}

function passedOrNot(status: CaseStatus): "passed" | "not passed" {
  return status === "passed" ? "passed" : "not passed";
}

function describeFlips(before: readonly TestResult[], after: readonly TestResult[]): string[] {
  const earlier = keyedByCase(before);
  const later = keyedByCase(after);
  const flips: string[] = [];
  let added = 0;
  for (const [key, result] of later) {
    const previous = earlier.get(key);
    if (previous === undefined) {
      added += 1;
      continue;
    }
    const from = caseStatus(previous);
    const to = caseStatus(result);
    if (passedOrNot(from) === passedOrNot(to)) continue;
    const file = result.file === undefined ? "" : ` (${showName(result.file)})`;
    flips.push(`"${showName(result.name)}"${file} ${from} → ${to}`);
  }
  const removed = [...earlier.keys()].filter((key) => !later.has(key)).length;
  const lines =
    flips.length === 0
      ? ["  Flipped: none"]
      : flips.slice(0, MAX_FLIPS_LISTED).map((flip) => `  Flipped: ${flip}`);
  if (flips.length > MAX_FLIPS_LISTED) {
    lines.push(`  … and ${flips.length - MAX_FLIPS_LISTED} more flipped`);
  }
  const changes = [
    ...(added > 0 ? [`${formatPlural(added, "new case")}`] : []),
    ...(removed > 0 ? [`${formatPlural(removed, "case")} gone`] : []),
  ];
  if (changes.length > 0) lines.push(`  Since the last run: ${changes.join(", ")}`);
  return lines;
}

/** Each metric this run measured: its mean over the suite before → after. */
function describeMeans(options: DescribeWatchRunOptions): string | null {
  const measured = new Set(options.result.summary.metrics.map((metric) => metric.name));
  if (measured.size === 0) return null;
  const before = new Map(summarizeMetrics(options.before).map((metric) => [metric.name, metric]));
  const parts = summarizeMetrics(options.after)
    .filter((metric) => measured.has(metric.name))
    .map((metric) => {
      const name = showName(metric.name);
      const now = formatScore(metric.meanScore);
      if (options.run === 1) return `${name} ${now}`;
      const then = formatScore(before.get(metric.name)?.meanScore ?? null);
      return then === now ? `${name} ${now} (=)` : `${name} ${then} → ${now}`;
    });
  return parts.join(" · ");
}
