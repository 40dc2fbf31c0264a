import { randomUUID } from "node:crypto";
import type { LabelledRow, LabelledRows } from "../dataset/read-labelled-rows.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type {
  CalibrationExample,
  CalibrationReport,
  UnscoredRow,
} from "../results/calibration-report.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import { snapshotSpending } from "../results/spending.ts";
import { computeCalibrationFigures, type ScoredRow } from "./calibration-figures.ts";

/**
 * The calibration report of a finished run over labelled rows: each row's label against the
 * metric's call (its own `success`: a lower-is-better metric's failure is a positive call, a
 * higher-is-better metric's pass is), the figures, the rows it got wrong (most confident
 * first: farthest from the threshold) and the rows left unscored, at most `maxExamples` each.
 */
export function buildCalibrationReport(options: {
  result: EvaluationResult;
  /** Each row's test-case name, by row index. */
  names: readonly string[];
  metric: BaseMetric<object>;
  read: LabelledRows;
  maxExamples: number;
  /** The data file as given; `null` for rows in memory. */
  source: string | null;
  limit: number | null;
}): CalibrationReport {
  const { result, names, metric, read, maxExamples } = options;
  const rows = read.rows;
  const threshold = metric.threshold as number;
  const byIndex = new Map(result.testResults.map((testResult) => [testResult.index, testResult]));
  const scored: Array<ScoredRow & { row: LabelledRow; reason: string | null }> = [];
  const unscored: UnscoredRow[] = [];
  let judge: string | null = null;
  for (const row of rows) {
    const place = { row: row.index + 1, line: row.line, name: names[row.index] as string };
    const data = byIndex.get(row.index)?.metricsData[0];
    if (data === undefined || data.score === null) {
      unscored.push({
        ...place,
        error:
          data?.error ??
          `Not scored: the run ended "${result.summary.status}" before this row (resume it with the same identifier).`,
      });
      continue;
    }
    judge ??= data.evaluationModel;
    scored.push({
      row,
      positive: row.positive,
      score: data.score,
      // The metric's own call: it fails a flagged row (lower is better), passes a good one.
      predicted: metric.lowerIsBetter ? data.success === false : data.success === true,
      reason: data.reason,
    });
  }
  const figures = computeCalibrationFigures({
    rows: scored,
    threshold,
    lowerIsBetter: metric.lowerIsBetter,
  });
  const wrong = scored
    .filter((entry) => entry.positive !== entry.predicted)
    .sort(
      (left, right) =>
        Math.abs(right.score - threshold) - Math.abs(left.score - threshold) ||
        left.row.index - right.row.index,
    );
  const disagreements = wrong.slice(0, maxExamples).map(
    (entry): CalibrationExample => ({
      row: entry.row.index + 1,
      line: entry.row.line,
      name: names[entry.row.index] as string,
      input: entry.row.input,
      actualOutput: entry.row.actualOutput,
      label: entry.row.label,
      expected: entry.positive,
      predicted: entry.predicted,
      score: entry.score,
      reason: entry.reason,
    }),
  );
  const { summary } = result;
  return {
    id: randomUUID(),
    runId: result.testRunId,
    createdAt: new Date().toISOString(),
    status: summary.status,
    metric: {
      name: metric.name,
      threshold,
      lowerIsBetter: metric.lowerIsBetter,
      strictMode: metric.strictMode,
      judge,
    },
    data: {
      source: options.source,
      inputField: read.fields.input,
      outputField: read.fields.output,
      labelField: read.fields.label,
      positiveLabel: read.positiveLabel,
      negativeLabel: read.negativeLabel,
      limit: options.limit,
    },
    rows: { total: rows.length, scored: scored.length, unscored: unscored.length },
    labels: {
      positive: scored.filter((entry) => entry.positive).length,
      negative: scored.filter((entry) => !entry.positive).length,
    },
    ...figures,
    disagreementCount: wrong.length,
    disagreements,
    unscored: unscored.slice(0, maxExamples),
    spending: snapshotSpending(summary),
    ...(summary.fakeJudge ? { fakeJudge: true as const } : {}),
  };
}
