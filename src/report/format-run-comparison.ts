import type { StoredRun } from "../store/run-store.ts";
import {
  COMPARISON_TOLERANCE,
  type MetricDirection,
  notSignificantLabel,
  type RunComparison,
} from "./compare-runs.ts";
import { countChanges } from "./find-changes.ts";
import {
  formatCount,
  formatPassRate,
  formatPValue,
  formatRatePoints,
  formatScore,
  showControlCharacters,
  showName,
} from "./format.ts";
import type { PairedTests } from "./paired-tests.ts";
import { renderChangedOutputs } from "./render-changed-outputs.ts";

const TOLERANCE = COMPARISON_TOLERANCE;

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
        metric.regressions.length > 0 ? "WORSE" : (notSignificantLabel(metric) ?? ""),
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
      : `Test cases that changed verdict (${countChanges(changes)}):`,
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
