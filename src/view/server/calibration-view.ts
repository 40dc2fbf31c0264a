import type { CalibrationReport } from "../../results/calibration-report.ts";
import type { StoredRun } from "../../store/run-store.ts";
import type { RunRow } from "../api.ts";
import type { CalibrationDetail, CalibrationRow, CalibrationsPage } from "../calibration-views.ts";
import type { LoadedRun } from "./loaded-run.ts";
import { NotFoundError } from "./view-errors.ts";
import { integerParameter } from "./view-query.ts";
import type { ViewStore } from "./view-store.ts";

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

/** `/api/calibrations?runId&limit`: `runId` a run's id or identifier (404 when unknown). */
export async function listCalibrations(options: {
  store: ViewStore;
  query: URLSearchParams;
  /** The run of an id or identifier; throws {@link NotFoundError}. */
  findRun: (idOrIdentifier: string) => Promise<{ run: StoredRun }>;
}): Promise<CalibrationsPage> {
  const { query } = options;
  const limit = integerParameter(query, "limit", { min: 1, max: 500, fallback: 50 });
  const runName = query.get("runId");
  const runId = runName === null || runName === "" ? null : (await options.findRun(runName)).run.id;
  const reports = await options.store.listCalibrations({
    ...(runId === null ? {} : { runId }),
    limit,
  });
  return { calibrations: reports.map(toCalibrationRow), runId, limit };
}

/** `/api/calibrations/:id`; throws {@link NotFoundError} for an unknown id. */
export async function showCalibration(options: {
  store: ViewStore;
  id: string;
  /** The run as the runs list shows it. */
  show: (run: StoredRun) => Promise<{ row: RunRow }>;
  load: (runId: string) => Promise<LoadedRun>;
}): Promise<CalibrationDetail> {
  const { store, id } = options;
  const report = await store.getCalibration(id);
  if (report === null) {
    throw new NotFoundError(
      `No calibration with the id ${JSON.stringify(id.slice(0, 200))}: see /api/calibrations.`,
    );
  }
  const run = await store.getRun(report.runId);
  // Another run's identifier may equal the id: only the run itself will do.
  if (run === null || run.id !== report.runId) {
    return toCalibrationDetail({ report, run: null, loaded: null });
  }
  return toCalibrationDetail({
    report,
    run: (await options.show(run)).row,
    loaded: await options.load(run.id),
  });
}

/**
 * A stored calibration in full, with the run that scored its rows (when still stored) and the
 * case of each wrong row in that run: row `n` was the run's case of index `n − 1`, which must
 * still carry the row's name.
 */
function toCalibrationDetail(options: {
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
