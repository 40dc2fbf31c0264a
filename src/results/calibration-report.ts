import type { JudgeSpending, RunStatus } from "./evaluation-result.ts";
import type { Interval } from "./statistics.ts";

/**
 * How a metric's verdicts agree with people's labels: what `calibrate()` returns, the store
 * keeps and every calibration report (console, JSON, HTML, the dashboard) reads. Plain JSON.
 *
 * The positive class is what a high score means: for a lower-is-better metric (Toxicity,
 * Bias) a positive row is one the metric flags (it fails: toxic, biased); for a
 * higher-is-better one (Answer Relevancy) one it passes (relevant). People's positive rows are
 * those whose label is `data.positiveLabel`.
 */
export interface CalibrationReport {
  /** Id of this calibration (a UUID). */
  id: string;
  /** The run that scored the rows: its results are in the store under this id. */
  runId: string;
  /** ISO time the calibration was computed. */
  createdAt: string;
  /** How that run ended: only `"completed"` runs scored every row. */
  status: RunStatus;
  metric: CalibrationMetric;
  data: CalibrationData;
  /** Rows read, scored (in the figures) and left unscored (a judge error, or the run stopped). */
  rows: { total: number; scored: number; unscored: number };
  /** People's labels of the scored rows. */
  labels: { positive: number; negative: number };
  confusion: ConfusionMatrix;
  /** Share of scored rows where the metric agreed with people; `null` when none was scored. */
  accuracy: number | null;
  /** Wilson 95% interval of `accuracy`. */
  accuracyCi: Interval | null;
  /** Of the rows the metric called positive, the share people call positive. */
  precision: number | null;
  /** Of the rows people call positive, the share the metric called positive. */
  recall: number | null;
  /** Harmonic mean of precision and recall. */
  f1: number | null;
  /** Cohen's κ: agreement beyond chance, −1 to 1 (0: chance, 1: perfect). */
  kappa: number | null;
  /** 95% interval of κ (Fleiss–Cohen–Everitt standard error). */
  kappaCi: Interval | null;
  /** Area under the ROC curve of the scores (ties count half); `null` without both classes. */
  rocAuc: number | null;
  /** The threshold that maximises κ, with its figures; `null` when no threshold defines κ. */
  bestKappa: ThresholdChoice | null;
  /** The threshold that maximises F1, with its figures. */
  bestF1: ThresholdChoice | null;
  /** How many scored rows the metric got wrong. */
  disagreementCount: number;
  /** The first of them, most confident first (score farthest from the threshold). */
  disagreements: CalibrationExample[];
  /** The rows left unscored, with why (at most as many as `disagreements` may hold). */
  unscored: UnscoredRow[];
  /** What the run paid for its judge calls and what the cache saved. */
  spending: JudgeSpending;
  /** `true` when scores came from verdict's fake judge: the figures mean nothing. */
  fakeJudge?: true | undefined;
}

/** The metric calibrated, as it ran. */
export interface CalibrationMetric {
  name: string;
  /** The threshold the metric ran with (its strict-mode threshold in strict mode). */
  threshold: number;
  lowerIsBetter: boolean;
  strictMode: boolean;
  /** The judge's name, e.g. `"openai:gpt-4.1"`; `null` when no row was scored. */
  judge: string | null;
}

/** Where the labelled rows came from and how they were read. */
export interface CalibrationData {
  /** The file as given; `null` for rows passed in memory. */
  source: string | null;
  inputField: string;
  outputField: string;
  labelField: string;
  /** The label that marks a positive row, as text. */
  positiveLabel: string;
  /** The other label, when the rows had one (or it was given). */
  negativeLabel: string | null;
  /** The row limit applied, if any. */
  limit: number | null;
}

/**
 * Counts of the scored rows by people's label (positive or not) and the metric's call.
 * `falsePositive`: people say negative, the metric positive.
 */
export interface ConfusionMatrix {
  truePositive: number;
  falseNegative: number;
  falsePositive: number;
  trueNegative: number;
}

/** A threshold and the figures the metric would have had with it. */
export interface ThresholdChoice {
  /** In the metric's own terms: pass it as the metric's `threshold`. */
  threshold: number;
  kappa: number | null;
  f1: number | null;
  accuracy: number;
  precision: number | null;
  recall: number | null;
}

/** A row the metric got wrong. */
export interface CalibrationExample {
  /** 1-based position of the row among the rows read. */
  row: number;
  /** Line of the data file where the row starts; `null` when unknown or in memory. */
  line: number | null;
  /** The row's id field when it has one, else `row <n>`: the test case's name in the run. */
  name: string;
  input: string;
  actualOutput: string;
  /** People's label, as text. */
  label: string;
  /** What people say: `true` for the positive class. */
  expected: boolean;
  /** What the metric said. */
  predicted: boolean;
  score: number;
  reason: string | null;
}

/** A row the metric did not score. */
export interface UnscoredRow {
  row: number;
  line: number | null;
  name: string;
  /** The metric's error, or why the row was never scored. */
  error: string;
}
