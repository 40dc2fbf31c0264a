import { type Cell, type Column, renderTable } from "../report/console/render-table.ts";
import { formatMeasurement, formatScore, formatScoreInterval } from "../report/format.ts";
import type { MetricSummary } from "../results/evaluation-result.ts";
import type { CheckpointEvaluation } from "./best-checkpoint.ts";

/** One scored epoch or checkpoint, as a row of the training table. */
export interface TrainingTableRow {
  /** Counted from 1; `null` when unknown. */
  epoch: number | null;
  /** The training step, when there is one (provider checkpoints). */
  step?: number | null;
  /** What the training loop logged (`loss`, `val_loss`, `train_loss`, …). */
  training: Readonly<Record<string, number>>;
  metrics: readonly MetricSummary[];
  /** Said in the last column, e.g. `"best"` or `"below floor"`. */
  note?: string;
}

/**
 * The table printed after each scored epoch or checkpoint, as deepeval's fine-tuning callback
 * shows it: one row per epoch so far, with its step, what training logged (the loss…), then
 * each metric's mean score and its 95% interval. `↓` marks a metric where lower is better.
 */
export function renderTrainingTable(options: {
  rows: readonly TrainingTableRow[];
  /** The widest a line may be. @default no limit */
  width?: number;
}): string {
  const { rows } = options;
  const trainingKeys = [...new Set(rows.flatMap((row) => Object.keys(row.training)))];
  const metrics = new Map<string, boolean>();
  for (const row of rows) {
    for (const metric of row.metrics) {
      if (!metrics.has(metric.name)) metrics.set(metric.name, metric.lowerIsBetter);
    }
  }
  const withSteps = rows.some((row) => row.step !== undefined && row.step !== null);
  const withNotes = rows.some((row) => row.note !== undefined && row.note !== "");
  const columns: Column[] = [
    { header: "Epoch", align: "right" },
    ...(withSteps ? [{ header: "Step", align: "right" } as const] : []),
    ...trainingKeys.map((key): Column => ({ header: key, align: "right" })),
    ...[...metrics].map(
      ([name, lowerIsBetter]): Column => ({
        header: `${name} ${lowerIsBetter ? "↓" : "↑"}`,
        align: "right",
      }),
    ),
    ...(withNotes ? [{ header: "", align: "left" } as const] : []),
  ];
  const table = rows.map((row): Cell[] => {
    const training = row.training;
    return [
      row.epoch === null ? "–" : String(row.epoch),
      ...(withSteps ? [row.step == null ? "–" : String(row.step)] : []),
      ...trainingKeys.map((key) => {
        const value = training[key];
        return value === undefined ? "" : formatMeasurement(value);
      }),
      ...[...metrics.keys()].map((name) => {
        const summary = row.metrics.find((metric) => metric.name === name);
        if (summary === undefined) return "";
        const interval = formatScoreInterval(summary.meanScoreInterval);
        return `${formatScore(summary.meanScore)}${interval ? ` [${interval}]` : ""}`;
      }),
      ...(withNotes ? [row.note ?? ""] : []),
    ];
  });
  const lines = renderTable({
    columns,
    rows: table,
    color: false,
    indent: "",
    ...(options.width === undefined ? {} : { width: options.width }),
  });
  return `${lines.join("\n")}\n(mean score [95% confidence interval]; ↓ lower is better, ↑ higher is better)\n`;
}

/** A checkpoint's row: its training metrics without `step`, which has its own column. */
export function checkpointRow(evaluation: CheckpointEvaluation, note = ""): TrainingTableRow {
  const { step: _step, ...training } = evaluation.checkpoint.trainingMetrics;
  return {
    epoch: evaluation.epoch,
    step: evaluation.checkpoint.step,
    training,
    metrics: evaluation.summary.metrics,
    note,
  };
}
