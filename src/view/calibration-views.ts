import type { CalibrationReport } from "../results/calibration-report.ts";
import type { RunStatus } from "../results/evaluation-result.ts";
import type { RunRow } from "./api.ts";

/** A calibration (`verdict calibrate`) in the list: what was calibrated, and its agreement. */
export interface CalibrationRow {
  id: string;
  createdAt: string;
  /** The run that scored the rows. */
  runId: string;
  /** How that run ended. */
  status: RunStatus;
  metric: string;
  lowerIsBetter: boolean;
  threshold: number;
  judge: string | null;
  /** The data file as given; `null` for rows passed in memory. */
  source: string | null;
  /** Rows read, scored (`n` of the figures) and left unscored. */
  rows: { total: number; scored: number; unscored: number };
  accuracy: number | null;
  accuracyCi: [number, number] | null;
  kappa: number | null;
  kappaCi: [number, number] | null;
  rocAuc: number | null;
  /** `true` when the scores came from the fake judge (the figures mean nothing). */
  fakeJudge: boolean;
}

/** `/api/calibrations`: calibrations, newest first. */
export interface CalibrationsPage {
  calibrations: CalibrationRow[];
  /** The run asked for (its id), or `null` for all. */
  runId: string | null;
  limit: number;
}

/** `/api/calibrations/:id`: the report as stored, its texts as text (the app shows them as text). */
export interface CalibrationDetail {
  report: CalibrationReport;
  /** The run that scored the rows, as the runs list shows it; `null` when it is gone. */
  run: RunRow | null;
  /**
   * For each of `report.disagreements`, in order: the `CaseRow.key` of its case in that
   * run, or `null` when the run does not hold it.
   */
  disagreementKeys: Array<string | null>;
}
