import type { CalibrationMetric, CalibrationReport } from "../../results/calibration-report.ts";
import type { Interval } from "../../results/statistics.ts";
import {
  formatCount,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  MISSING_VALUE,
} from "../format.ts";

/**
 * The words every calibration report (console, HTML) uses for the same facts, so they read
 * alike: which class is positive, what a threshold does, intervals, labels.
 */

/** `"flagged by Toxicity (score > 0.50)"` / `"passed by Answer Relevancy (score ≥ 0.50)"`. */
export function describePositiveCall(
  metric: CalibrationMetric,
  threshold = metric.threshold,
): string {
  return metric.lowerIsBetter
    ? `flagged by ${metric.name} (score > ${formatScore(threshold)})`
    : `passed by ${metric.name} (score ≥ ${formatScore(threshold)})`;
}

/** What a threshold does for this metric, for the threshold table's heading. */
export function describeThresholdRule(metric: CalibrationMetric): string {
  return metric.lowerIsBetter
    ? `${metric.name} flags scores above the threshold`
    : `${metric.name} passes scores at or above the threshold`;
}

/** `"0.62–0.78"` (scores) or `"80.5–88.6%"` (rates); {@link MISSING_VALUE} when none. */
export function formatInterval(interval: Interval | null, kind: "score" | "rate"): string {
  if (interval === null) return MISSING_VALUE;
  return kind === "rate" ? formatRateInterval(interval) : formatScoreInterval(interval);
}

/** `label "1"` (positive) and `label "0"` (negative), as the data says. */
export function describeLabels(report: CalibrationReport): string {
  const { positiveLabel, negativeLabel } = report.data;
  const negative = negativeLabel === null ? "any other" : `"${negativeLabel}"`;
  return `positive = label "${positiveLabel}", negative = ${negative}`;
}

/** `150 positive, 150 negative`. */
export function describeLabelCounts(report: CalibrationReport): string {
  return `${formatCount(report.labels.positive)} positive, ${formatCount(report.labels.negative)} negative`;
}

/** Why the figures may not cover every row, or `null` when they do. */
export function describeIncompleteRun(report: CalibrationReport): string | null {
  if (report.rows.unscored === 0) return null;
  const ended = report.status === "completed" ? "" : ` The run ended "${report.status}".`;
  return `${formatCount(report.rows.unscored)} of ${formatCount(report.rows.total)} rows were not scored and are left out of the figures.${ended} Run again with the same identifier and resume to score them; judge answers already paid for come from the cache.`;
}

/** Where a row is: `q-7 (line 7)`, or `row 3, line 3` for a row without an id. */
export function placeOf(place: { name: string; row: number; line: number | null }): string {
  const where = place.line === null ? `row ${place.row}` : `line ${place.line}`;
  return place.name === `row ${place.row}`
    ? place.line === null
      ? place.name
      : `${place.name}, ${where}`
    : `${place.name} (${where})`;
}

/** Where a row is in its file, without its name: `line 7`, or `row 7` in memory. */
export function lineOf(place: { row: number; line: number | null }): string {
  return place.line === null ? `row ${place.row}` : `line ${place.line}`;
}
