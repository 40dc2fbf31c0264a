import type { CalibrationReport } from "../../results/calibration-report.ts";
import type { CalibrationDetail, CalibrationRow, RunRow } from "../api.ts";
import type { LoadedRun } from "./loaded-run.ts";

/** A stored calibration as the calibrations list shows it. */
export function toCalibrationRow(report: CalibrationReport): CalibrationRow {
  return {
    id: report.id,
    createdAt: report.createdAt,
    runId: report.runId,
    status: report.status,
    metric: report.metric.name,
    lowerIsBetter: report.metric.lowerIsBetter,
    threshold: report.metric.threshold,
    judge: report.metric.judge,
    source: report.data.source,
    rows: { ...report.rows },
    accuracy: report.accuracy,
    accuracyCi: report.accuracyCi,
    kappa: report.kappa,
    kappaCi: report.kappaCi,
    rocAuc: report.rocAuc,
    fakeJudge: report.fakeJudge === true,
  };
}

/**
 * A stored calibration in full, with the run that scored its rows (when still stored) and the
 * case of each wrong row in that run: row `n` was the run's case of index `n − 1`, which must
 * still carry the row's name.
 */
export function toCalibrationDetail(options: {
  report: CalibrationReport;
  run: RunRow | null;
  loaded: LoadedRun | null;
}): CalibrationDetail {
  const { report, run, loaded } = options;
  return {
    report,
    run,
    disagreementKeys: report.disagreements.map((example) => {
      const entry = loaded?.entry(String(example.row - 1));
      return entry !== undefined && entry.result.name === example.name ? entry.key : null;
    }),
  };
}
