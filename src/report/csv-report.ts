import { stringify } from "csv/sync";
import { caseOutcome } from "../results/case-metrics.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";

/** Options of {@link renderCsvReport}. */
export interface RenderCsvReportOptions {
  result: EvaluationResult;
}

// A spreadsheet reads a cell that starts with one of these as a formula (CSV injection): such
// text cells get a leading apostrophe, which spreadsheets show as text and do not display.
const FORMULA_START = /^[=+\-@\t\r]/;

function textCell(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function numberCell(value: number | null | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

function booleanCell(value: boolean | null | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

/**
 * Renders a run as CSV, one row per test case (its first trial's metrics, as the other reports
 * show them): position, name, status, file, tags, input, outputs, duration, then per metric
 * its score, threshold, success, reason and error. RFC 4180 quoting; text cells that a
 * spreadsheet would run as a formula (`=`, `+`, `-`, `@`) start with an apostrophe.
 * @example
 * writeFileSync("results.csv", renderCsvReport({ result }));
 */
export function renderCsvReport(options: RenderCsvReportOptions): string {
  const { testResults } = options.result;
  const metricNames = [
    ...new Set(testResults.flatMap((result) => result.metricsData.map((metric) => metric.name))),
  ];
  const header = [
    "position",
    "name",
    "status",
    "file",
    "tags",
    "input",
    "actualOutput",
    "expectedOutput",
    "durationMs",
    ...metricNames.flatMap((name) => [
      `${name} score`,
      `${name} threshold`,
      `${name} success`,
      `${name} reason`,
      `${name} error`,
    ]),
  ];
  const rows = testResults.map((result, position) => [
    String(position + 1),
    textCell(result.name),
    caseOutcome(result),
    textCell(result.file),
    textCell((result.tags ?? []).join("|")),
    textCell(result.input),
    textCell(result.actualOutput),
    textCell(result.expectedOutput),
    numberCell(result.durationMs),
    ...metricNames.flatMap((name) => {
      const metric = result.metricsData.find((data) => data.name === name);
      return [
        numberCell(metric?.score),
        numberCell(metric?.threshold),
        booleanCell(metric?.success),
        textCell(metric?.reason),
        textCell(metric?.error),
      ];
    }),
  ]);
  return stringify([header.map(textCell), ...rows], { eof: true, record_delimiter: "\r\n" });
}
