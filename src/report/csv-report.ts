import { type CsvValue, renderCsv } from "../csv/render-csv.ts";
import { caseOutcome } from "../results/case-metrics.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";

/** Options of {@link renderCsvReport}. */
export interface RenderCsvReportOptions {
  result: EvaluationResult;
}

/**
 * Renders a run as CSV, one row per test case (its first trial's metrics, as the other reports
 * show them): position, name, status, file, tags, input, outputs, duration, then per metric
 * its score, threshold, success, reason and error. Written by `renderCsv`: RFC 4180 quoting,
 * and a `'` before text a spreadsheet would run as a formula (see docs/reliability.md).
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
  const rows = testResults.map((result, position): CsvValue[] => [
    position + 1,
    result.name,
    caseOutcome(result),
    result.file,
    (result.tags ?? []).join("|"),
    result.input,
    result.actualOutput,
    result.expectedOutput,
    result.durationMs,
    ...metricNames.flatMap((name) => {
      const metric = result.metricsData.find((data) => data.name === name);
      return [metric?.score, metric?.threshold, metric?.success, metric?.reason, metric?.error];
    }),
  ]);
  return renderCsv({ rows: [header, ...rows] });
}
