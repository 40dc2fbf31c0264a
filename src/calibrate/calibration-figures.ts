import type {
  CalibrationReport,
  ConfusionMatrix,
  ThresholdChoice,
} from "../results/calibration-report.ts";
import { cohensKappa, type Interval, rocAuc, wilsonInterval } from "../results/statistics.ts";

/** A scored row: people's label, the metric's score and what the metric called it. */
export interface ScoredRow {
  /** People's label: `true` for the positive class. */
  positive: boolean;
  score: number;
  /** The metric's call at its own threshold: `true` for the positive class. */
  predicted: boolean;
}

/** The agreement figures of a set of scored rows: these fields of a calibration report. */
export type CalibrationFigures = Pick<
  CalibrationReport,
  | "confusion"
  | "accuracy"
  | "accuracyCi"
  | "precision"
  | "recall"
  | "f1"
  | "kappa"
  | "kappaCi"
  | "rocAuc"
  | "bestKappa"
  | "bestF1"
>;

/**
 * Whether a score is a positive call at `threshold`, by the metric's own rule: a
 * lower-is-better metric flags scores above its threshold (it fails them), a higher-is-better
 * one passes scores at or above it. Either way, the higher the score the more positive.
 */
export function predictsPositive(options: {
  score: number;
  threshold: number;
  lowerIsBetter: boolean;
}): boolean {
  const { score, threshold, lowerIsBetter } = options;
  return lowerIsBetter ? score > threshold : score >= threshold;
}

/** Counts rows by people's label and the call. */
export function confusionOf(
  rows: ReadonlyArray<{ positive: boolean; predicted: boolean }>,
): ConfusionMatrix {
  const confusion = { truePositive: 0, falseNegative: 0, falsePositive: 0, trueNegative: 0 };
  for (const { positive, predicted } of rows) {
    if (positive && predicted) confusion.truePositive += 1;
    else if (positive) confusion.falseNegative += 1;
    else if (predicted) confusion.falsePositive += 1;
    else confusion.trueNegative += 1;
  }
  return confusion;
}

const ratio = (numerator: number, denominator: number) =>
  denominator === 0 ? null : numerator / denominator;

/** Accuracy, precision, recall, F1 and Cohen's κ (with its interval) of a confusion matrix. */
export function agreementOf(confusion: ConfusionMatrix): {
  accuracy: number | null;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  kappa: number | null;
  kappaCi: Interval | null;
} {
  const { truePositive, falseNegative, falsePositive, trueNegative } = confusion;
  const total = truePositive + falseNegative + falsePositive + trueNegative;
  const { kappa, interval } = cohensKappa({
    matrix: [
      [truePositive, falseNegative],
      [falsePositive, trueNegative],
    ],
  });
  return {
    accuracy: ratio(truePositive + trueNegative, total),
    precision: ratio(truePositive, truePositive + falsePositive),
    recall: ratio(truePositive, truePositive + falseNegative),
    f1: ratio(2 * truePositive, 2 * truePositive + falsePositive + falseNegative),
    kappa,
    kappaCi: interval,
  };
}

/**
 * Every figure of a calibration: the confusion matrix at the metric's threshold, accuracy
 * (Wilson interval), precision, recall, F1, Cohen's κ (interval), ROC AUC of the scores, and
 * the thresholds that maximise κ and F1 (ties go to the one nearest the metric's threshold).
 * Candidate thresholds are 0, 1, the metric's own and every score seen: between two seen
 * scores, every threshold makes the same calls, and the metric's own wins a tie.
 */
export function computeCalibrationFigures(options: {
  rows: readonly ScoredRow[];
  threshold: number;
  lowerIsBetter: boolean;
}): CalibrationFigures {
  const { rows, threshold, lowerIsBetter } = options;
  const confusion = confusionOf(rows);
  const agreement = agreementOf(confusion);
  const candidates = [...new Set([0, threshold, 1, ...rows.map((row) => row.score)])].sort(
    (a, b) => a - b,
  );
  const choices = candidates.map((candidate): ThresholdChoice => {
    const figures = agreementOf(
      confusionOf(
        rows.map((row) => ({
          positive: row.positive,
          predicted: predictsPositive({ score: row.score, threshold: candidate, lowerIsBetter }),
        })),
      ),
    );
    return {
      threshold: candidate,
      kappa: figures.kappa,
      f1: figures.f1,
      accuracy: figures.accuracy ?? 0,
      precision: figures.precision,
      recall: figures.recall,
    };
  });
  const best = (figure: "kappa" | "f1"): ThresholdChoice | null => {
    let chosen: ThresholdChoice | null = null;
    for (const choice of choices) {
      const value = choice[figure];
      if (value === null) continue;
      const held = chosen?.[figure] ?? null;
      const nearer =
        chosen !== null &&
        Math.abs(choice.threshold - threshold) < Math.abs(chosen.threshold - threshold);
      // Equal within rounding counts as a tie: the nearer threshold is the smaller change.
      if (held === null || value > held + 1e-12 || (Math.abs(value - held) <= 1e-12 && nearer)) {
        chosen = choice;
      }
    }
    return rows.length === 0 ? null : chosen;
  };
  return {
    confusion,
    ...agreement,
    accuracyCi: wilsonInterval({
      successes: confusion.truePositive + confusion.trueNegative,
      trials: rows.length,
    }),
    rocAuc: rocAuc({
      scores: rows.map((row) => row.score),
      positives: rows.map((row) => row.positive),
    }),
    bestKappa: best("kappa"),
    bestF1: best("f1"),
  };
}
