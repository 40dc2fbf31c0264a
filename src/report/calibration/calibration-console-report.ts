import type { CalibrationReport, ThresholdChoice } from "../../results/calibration-report.ts";
import { FAKE_JUDGE_NOTICE } from "../../results/fake-judge-notice.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import {
  formatCostUsd,
  formatCount,
  formatPassRate,
  formatPlural,
  formatScore,
  showControlCharacters,
  toOneLine,
} from "../format.ts";
import { truncateText } from "../truncate-text.ts";
import {
  describeIncompleteRun,
  describeLabelCounts,
  describeLabels,
  describePositiveCall,
  describeThresholdRule,
  formatInterval,
  placeOf,
} from "./describe-calibration.ts";

/** Options of {@link renderCalibrationConsoleReport}. */
export interface RenderCalibrationConsoleReportOptions {
  report: CalibrationReport;
  /** The widest a line may be; judged text is cut to fit. @default 80 */
  width?: number;
}

/** `prefix`, then text from the data or the judge on one line, cut so the line fits `width`. */
function oneLine(prefix: string, text: string, width: number): string {
  const room = Math.max(10, width - Array.from(prefix).length);
  return `${prefix}${truncateText(toOneLine(showControlCharacters(text)), room)}`;
}

/**
 * Lines of `text` wrapped at word boundaries to `width`, every line after the first indented;
 * a word too long for a line (a long path) is cut across lines.
 */
function wrapped(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  // The text's own leading spaces start its first line.
  const lead = /^ */.exec(text)?.[0] ?? "";
  let line = lead;
  const room = Math.max(10, width - Array.from(indent).length);
  const words = text
    .slice(lead.length)
    .split(" ")
    .flatMap((word) => {
      const characters = Array.from(word);
      if (characters.length <= room) return [word];
      return Array.from({ length: Math.ceil(characters.length / room) }, (_, part) =>
        characters.slice(part * room, (part + 1) * room).join(""),
      );
    });
  for (const word of words) {
    const candidate = line.trim() === "" ? `${line}${word}` : `${line} ${word}`;
    if (Array.from(candidate).length > width && line.trim() !== "") {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = candidate;
  }
  lines.push(line);
  return lines;
}

function thresholdLine(label: string, choice: ThresholdChoice | null, current: number): string {
  if (choice === null) return `  ${label}  ${formatScore(null)}`;
  const note = Math.abs(choice.threshold - current) < 1e-12 ? "  (current)" : "";
  return `  ${label}  ${formatScore(choice.threshold)}   κ ${formatScore(choice.kappa)}  F1 ${formatScore(choice.f1)}  accuracy ${formatPassRate(choice.accuracy)}${note}`;
}

/**
 * A calibration report as plain text for a terminal (80 columns by default): the metric, data
 * and judge; agreement figures with their 95% intervals; the confusion matrix; the thresholds
 * that maximise κ and F1; and the rows the metric got wrong, one output and reason line each.
 * Text from the data and the judge is put on one line, cut to fit, control characters shown
 * and secrets masked.
 * @example
 * process.stdout.write(renderCalibrationConsoleReport({ report: await calibrate({ … }) }));
 */
export function renderCalibrationConsoleReport(
  options: RenderCalibrationConsoleReportOptions,
): string {
  const { report } = options;
  const width = options.width ?? 80;
  const { metric, confusion } = report;
  const lines: string[] = [];
  const push = (text: string, indent = "          ") => lines.push(...wrapped(text, width, indent));
  push(`verdict calibration · ${metric.name} against human labels`, "  ");
  if (report.fakeJudge) lines.push("", ...wrapped(`! ${FAKE_JUDGE_NOTICE}`, width, "  "));
  lines.push("");
  push(
    `Data      ${report.data.source ?? "rows in memory"} · ${formatPlural(report.rows.total, "row")}${report.data.limit === null ? "" : ` (limit ${formatCount(report.data.limit)})`} · ${describeLabels(report)}`,
  );
  push(
    `Judge     ${metric.judge ?? "none (no row scored)"} · threshold ${formatScore(metric.threshold)}${metric.strictMode ? " (strict mode)" : ""}`,
  );
  push(`Positive  ${describePositiveCall(metric)}`);
  push(`Run       ${report.runId} · ${report.status}`);
  push(
    `Spent     ${formatPlural(report.spending.judgeCalls, "judge call")} (${formatCount(report.spending.cacheHits)} more from the cache) · ${formatCostUsd(report.spending.costUsd)}`,
  );
  const incomplete = describeIncompleteRun(report);
  if (incomplete !== null) lines.push("", ...wrapped(`! ${incomplete}`, width, "  "));

  lines.push(
    "",
    `Agreement over ${formatPlural(report.rows.scored, "scored row")} (${describeLabelCounts(report)})`,
    `  Accuracy    ${formatPassRate(report.accuracy).padEnd(6)}  95% CI ${formatInterval(report.accuracyCi, "rate")} (Wilson)`,
    `  Cohen's κ   ${formatScore(report.kappa).padEnd(6)}  95% CI ${formatInterval(report.kappaCi, "score")}`,
    `  Precision   ${formatPassRate(report.precision)}`,
    `  Recall      ${formatPassRate(report.recall)}`,
    `  F1          ${formatScore(report.f1)}`,
    `  ROC AUC     ${formatScore(report.rocAuc)}`,
  );

  const cells = [
    ["", "metric: positive", "metric: negative"],
    ["people: positive", formatCount(confusion.truePositive), formatCount(confusion.falseNegative)],
    ["people: negative", formatCount(confusion.falsePositive), formatCount(confusion.trueNegative)],
  ];
  lines.push("", "Confusion matrix");
  for (const row of cells) {
    lines.push(
      `  ${(row[0] ?? "").padEnd(18)}${(row[1] ?? "").padStart(18)}${(row[2] ?? "").padStart(18)}`.trimEnd(),
    );
  }

  lines.push(
    "",
    ...wrapped(`Best thresholds (${describeThresholdRule(metric)})`, width, "  "),
    thresholdLine("for κ ", report.bestKappa, metric.threshold),
    thresholdLine("for F1", report.bestF1, metric.threshold),
  );

  lines.push("");
  if (report.disagreementCount === 0) {
    lines.push(
      report.rows.scored === 0
        ? "No row was scored."
        : "The metric agreed with people on every scored row.",
    );
  } else {
    const shown = report.disagreements.length;
    lines.push(
      `Rows the metric got wrong: ${formatCount(report.disagreementCount)}${shown < report.disagreementCount ? ` (the ${formatCount(shown)} most confident below)` : ""}`,
    );
    for (const example of report.disagreements) {
      lines.push(
        oneLine(
          "  ",
          `${placeOf(example)}: people ${example.expected ? "positive" : "negative"}, metric ${example.predicted ? "positive" : "negative"}, score ${formatScore(example.score)}`,
          width,
        ),
        oneLine("    output  ", example.actualOutput, width),
      );
      if (example.reason !== null) lines.push(oneLine("    reason  ", example.reason, width));
    }
  }
  if (report.unscored.length > 0) {
    lines.push("", `Rows not scored: ${formatCount(report.rows.unscored)}`);
    for (const row of report.unscored) {
      // The whole error, wrapped: it says what to do (up to a few lines).
      const error = truncateText(toOneLine(showControlCharacters(row.error)), 400);
      lines.push(...wrapped(`  ${placeOf(row)}: ${error}`, width, "    "));
    }
  }
  return `${redactSecretText(lines.join("\n"))}\n`;
}
