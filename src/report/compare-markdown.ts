import type { TestResult } from "../results/evaluation-result.ts";
import { type MetricComparison, notSignificantLabel, type RunComparison } from "./compare-runs.ts";
import { countChanges, type VerdictChange } from "./find-changes.ts";
import {
  formatCount,
  formatPassRate,
  formatPlural,
  formatPValue,
  formatRatePoints,
  formatScore,
} from "./format.ts";
import { codeBlock, inlineText, MarkdownBudget, markdownTable } from "./markdown/markdown-text.ts";
import type { PairedTests } from "./paired-tests.ts";
import type { RunWithResults } from "./run-with-results.ts";

/** Options of {@link renderComparisonMarkdown}. */
export interface RenderComparisonMarkdownOptions {
  baseline: RunWithResults;
  candidate: RunWithResults;
  comparison: RunComparison;
  maxDrop: number;
  /** How each run is named, e.g. its identifier or the report file it came from. */
  labels?: { baseline: string; candidate: string };
  /** Said under the header (a run that is not complete, a stale run). */
  notes?: readonly string[];
  /**
   * The most characters the comment may take: changed cases that do not fit are listed by
   * name. A GitHub pull-request comment holds 65,536.
   * @default 60000
   */
  maxLength?: number;
  /** Characters of each output shown. @default 800 */
  maxOutputLength?: number;
}

const DEFAULT_MAX_LENGTH = 60_000;
const DEFAULT_MAX_OUTPUT_LENGTH = 800;
const MAX_NAME_LENGTH = 200;
const MAX_REASON_LENGTH = 500;
const MAX_NAMES_LISTED = 100;
const BETTER = { "higher-is-better": "higher", "lower-is-better": "lower" } as const;

/**
 * `verdict compare` as GitHub-flavoured Markdown for a pull-request comment or a job summary:
 * whether a metric got worse (beyond `--max-drop`, and significantly), a table of each
 * metric's mean score and pass rate in both runs with the paired tests' p-values, then the
 * test cases whose verdict changed by name — regressions first — each with both runs' scores,
 * reasons and outputs (cut to `maxOutputLength`), within `maxLength`. Text from the runs is
 * shown, never rendered, and secrets are masked.
 * @example
 * const markdown = renderComparisonMarkdown({ baseline, candidate, comparison, maxDrop: 0 });
 */
export function renderComparisonMarkdown(options: RenderComparisonMarkdownOptions): string {
  const { comparison, baseline, candidate } = options;
  const labels = options.labels ?? {
    baseline: baseline.run.identifier ?? baseline.run.id,
    candidate: candidate.run.identifier ?? candidate.run.id,
  };
  const worse = comparison.metrics.filter((metric) => metric.regressions.length > 0);
  const budget = new MarkdownBudget(options.maxLength ?? DEFAULT_MAX_LENGTH);
  const significance =
    comparison.alpha === null ? "" : ` and significantly (p < ${comparison.alpha})`;
  budget.add(
    worse.length > 0
      ? `## ❌ verdict compare: ${worse.map((metric) => inlineText(metric.name, MAX_NAME_LENGTH)).join(", ")} got worse`
      : "## ✅ verdict compare: no metric got worse",
  );
  budget.add(
    [
      `**${inlineText(labels.candidate, MAX_NAME_LENGTH)}** (${describeRun(candidate)}) against **${inlineText(labels.baseline, MAX_NAME_LENGTH)}** (${describeRun(baseline)}).`,
      `A metric fails the comparison when it got worse by more than ${options.maxDrop}${significance}.`,
      ...(options.notes ?? []).map((note) => `> ${inlineText(note, 1000)}`),
    ].join("\n"),
  );
  budget.add(metricTable(comparison));
  const { unmatched } = comparison;
  for (const [label, names] of [
    ["baseline", unmatched.baseline],
    ["candidate", unmatched.candidate],
  ] as const) {
    if (names.length === 0) continue;
    const shown = names.slice(0, 20).map((name) => inlineText(name, MAX_NAME_LENGTH));
    const more =
      names.length > shown.length ? `, and ${formatCount(names.length - shown.length)} more` : "";
    budget.add(`Only in the ${label} (not compared): ${shown.join(", ")}${more}.`);
  }
  const changes = orderChanges(comparison.changes);
  if (changes.length === 0) {
    budget.add("No test case changed verdict.");
    return `${budget.toString()}\n`;
  }
  budget.add(`### Test cases that changed verdict (${countChanges(changes)})`);
  const index = {
    baseline: new Map(baseline.results.map((result) => [result.index, result])),
    candidate: new Map(candidate.results.map((result) => [result.index, result])),
  };
  const left: VerdictChange[] = [];
  for (const change of changes) {
    const section = changedCase({
      change,
      before: index.baseline.get(change.baselineIndex),
      after: index.candidate.get(change.candidateIndex),
      labels,
      maxOutput: options.maxOutputLength ?? DEFAULT_MAX_OUTPUT_LENGTH,
    });
    if (!budget.add(section)) left.push(change);
  }
  if (left.length === 0) return `${budget.toString()}\n`;
  const names = left
    .slice(0, MAX_NAMES_LISTED)
    .map(
      (change) => `- ${inlineText(change.testCase, MAX_NAME_LENGTH)}: ${describeChange(change)}`,
    );
  const more =
    left.length > names.length ? `\n- … and ${formatCount(left.length - names.length)} more` : "";
  // Past the budget on purpose: what was left out must be said.
  return `${budget.toString()}\n\n${formatPlural(left.length, "more changed test case")}, outputs left out to keep this comment short (run verdict compare to see them all):\n\n${names.join("\n")}${more}\n`;
}

function describeRun(entry: RunWithResults): string {
  const { run } = entry;
  const total = run.summary?.testCases.total ?? entry.results.length;
  return `${formatPlural(total, "test case")}, ${inlineText(run.status, 40)}`;
}

function metricTable(comparison: RunComparison): string {
  const rows = comparison.metrics.map((metric) => [
    inlineText(metric.name, MAX_NAME_LENGTH),
    BETTER[metric.direction],
    fromTo(metric.baseline?.meanScore ?? null, metric.candidate?.meanScore ?? null, "score"),
    fromTo(metric.baseline?.passRate ?? null, metric.candidate?.passRate ?? null, "rate"),
    pValues(metric.tests),
    verdictOf(metric),
  ]);
  return markdownTable(
    [
      { header: "Metric" },
      { header: "Better" },
      { header: "Mean score" },
      { header: "Pass rate" },
      { header: "Paired tests (worse?)" },
      { header: "Result" },
    ],
    rows,
  );
}

function fromTo(before: number | null, after: number | null, kind: "score" | "rate"): string {
  const format = kind === "score" ? formatScore : formatPassRate;
  const text = `${format(before)} → ${format(after)}`;
  if (before === null || after === null || Math.abs(after - before) < 1e-9) {
    return inlineText(text, 100);
  }
  const delta = after - before;
  const size = kind === "score" ? formatScore(Math.abs(delta)) : formatRatePoints(Math.abs(delta));
  return inlineText(`${text} (${delta > 0 ? "+" : "−"}${size})`, 100);
}

function pValues(tests: PairedTests | null): string {
  if (tests === null) return "off (--no-stats)";
  const parts: string[] = [];
  if (tests.passFail) {
    parts.push(
      `pass/fail ${formatPValue(tests.passFail.pValue)} (${tests.passFail.passToFail} pass→fail, ${tests.passFail.failToPass} fail→pass)`,
    );
  }
  if (tests.scores) parts.push(`scores ${formatPValue(tests.scores.pValue)}`);
  return parts.length === 0 ? "no paired cases" : inlineText(parts.join("; "), 300);
}

function verdictOf(metric: MetricComparison): string {
  if (metric.regressions.length > 0) {
    return `**worse**: ${inlineText(metric.regressions.join("; "), 400)}`;
  }
  const label = notSignificantLabel(metric);
  return label === null ? "ok" : `${label}: ${inlineText(metric.notSignificant.join("; "), 400)}`;
}

/** Regressions first (a pass lost), then other changes, each group in run order. */
function orderChanges(changes: readonly VerdictChange[]): VerdictChange[] {
  const lost = (change: VerdictChange) => change.from === "passed" && change.to !== "passed";
  return [...changes.filter(lost), ...changes.filter((change) => !lost(change))];
}

function describeChange(change: VerdictChange): string {
  return inlineText(
    `${change.metric} ${change.from} → ${change.to} (score ${formatScore(change.baselineScore)} → ${formatScore(change.candidateScore)})`,
    300,
  );
}

function changedCase(options: {
  change: VerdictChange;
  before: TestResult | undefined;
  after: TestResult | undefined;
  labels: { baseline: string; candidate: string };
  maxOutput: number;
}): string {
  const { change, before, after, labels, maxOutput } = options;
  const icon = change.from === "passed" && change.to !== "passed" ? "❌" : "✅";
  const output = (result: TestResult | undefined) =>
    result?.actualOutput == null ? "_(none)_" : codeBlock(result.actualOutput, maxOutput);
  const parts = [
    `#### ${icon} ${inlineText(change.testCase, MAX_NAME_LENGTH)}: ${describeChange(change)}`,
    markdownTable(
      [
        { header: "" },
        { header: inlineText(labels.baseline, 100) },
        { header: inlineText(labels.candidate, 100) },
      ],
      [
        ["Verdict", change.from, `**${change.to}**`],
        ["Score", formatScore(change.baselineScore), formatScore(change.candidateScore)],
        [
          "Reason",
          inlineText(change.baselineReason ?? "", MAX_REASON_LENGTH),
          inlineText(change.candidateReason ?? "", MAX_REASON_LENGTH),
        ],
      ],
    ),
  ];
  if (before !== undefined) parts.push(`**Input**\n${codeBlock(before.input, maxOutput)}`);
  if (before !== undefined && after !== undefined && before.actualOutput === after.actualOutput) {
    // Only the judge changed its mind: one copy of the output says all.
    parts.push(`**Output (the same in both runs)**\n${output(before)}`);
  } else {
    parts.push(
      `**Output in ${inlineText(labels.baseline, 100)}**\n${output(before)}`,
      `**Output in ${inlineText(labels.candidate, 100)}**\n${output(after)}`,
    );
  }
  return parts.join("\n\n");
}
