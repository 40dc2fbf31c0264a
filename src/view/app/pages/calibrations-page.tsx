import {
  formatCount,
  formatPassRate,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  showName,
} from "../../../report/format.ts";
import type {
  CalibrationRow,
  CalibrationsPage as CalibrationsData,
} from "../../calibration-views.ts";
import { apiPath } from "../api-client.ts";
import { IntervalNote } from "../components/interval-note.tsx";
import { Link } from "../components/link.tsx";
import { ErrorNotice, Loading } from "../components/load-state.tsx";
import { TimeText } from "../components/time-text.tsx";
import { calibrationPath, calibrationsPath, runPath } from "../router.ts";
import { useApi } from "../use-api.ts";
import { useTitle } from "../use-title.ts";

const LIMIT = 500;

/**
 * `/calibrations` (`?run=R`: those of one run): every stored calibration (`verdict
 * calibrate`), newest first — the metric, its data and judge, how many rows were scored, and
 * the agreement with people: accuracy and Cohen's κ with their 95% intervals, ROC AUC.
 */
export function CalibrationsPage(props: { runId: string | null }) {
  useTitle(props.runId === null ? "Calibrations" : "Calibrations of a run");
  const list = useApi<CalibrationsData>(
    apiPath("/api/calibrations", { runId: props.runId, limit: LIMIT }),
  );
  return (
    <div class="page" aria-busy={list.loading}>
      <div class="page-heading">
        <h1 tabIndex={-1}>Calibrations</h1>
        <p class="page-subtitle">
          How well a metric agrees with people's labels, from <code>verdict calibrate</code>.
          {props.runId !== null && (
            <>
              {" "}
              Of run <code>{props.runId}</code> only ·{" "}
              <Link href={calibrationsPath()}>all calibrations</Link>
            </>
          )}
        </p>
      </div>
      {list.error && (
        <ErrorNotice
          error={list.error}
          what={list.error.status === 404 && props.runId !== null ? "run" : "calibrations"}
        />
      )}
      {list.data === null && !list.error && <Loading what="calibrations" />}
      {list.data !== null && <CalibrationTable data={list.data} />}
    </div>
  );
}

function CalibrationTable(props: { data: CalibrationsData }) {
  const { calibrations } = props.data;
  if (calibrations.length === 0) {
    return (
      <p class="empty">
        No calibrations stored yet. Run{" "}
        <code>verdict calibrate labels.jsonl --metric toxicity</code> over rows people labelled,
        then reload.
      </p>
    );
  }
  return (
    <>
      <p class="result-count" role="status">
        {formatPlural(calibrations.length, "calibration")}
        {calibrations.length === props.data.limit ? " (the newest)" : ""}
      </p>
      <div class="table-scroll">
        <table class="data-table calibrations-table">
          <caption class="visually-hidden">Calibrations, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">Data</th>
              <th scope="col" class="numeric">
                Rows
                <span class="column-note">scored of read</span>
              </th>
              <th scope="col" class="numeric">
                Cohen's κ
              </th>
              <th scope="col" class="numeric">
                Accuracy
              </th>
              <th scope="col" class="numeric">
                ROC AUC
              </th>
              <th scope="col">Run</th>
            </tr>
          </thead>
          <tbody>
            {calibrations.map((calibration) => (
              <CalibrationRowView key={calibration.id} calibration={calibration} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function CalibrationRowView(props: { calibration: CalibrationRow }) {
  const { calibration } = props;
  return (
    <tr>
      <th scope="row">
        <Link href={calibrationPath(calibration.id)} class="calibration-link">
          {showName(calibration.metric)}
        </Link>
        <span class="cell-note">
          <TimeText iso={calibration.createdAt} withSeconds={false} />
          {calibration.fakeJudge && " · fake judge"}
        </span>
      </th>
      <td>
        {calibration.source === null ? "rows in memory" : <code>{calibration.source}</code>}
        <span class="cell-note">
          {calibration.judge === null ? "no judge (no row scored)" : showName(calibration.judge)} ·
          threshold {formatScore(calibration.threshold)}
        </span>
      </td>
      <td class="numeric">
        {formatCount(calibration.rows.scored)} / {formatCount(calibration.rows.total)}
        {calibration.rows.unscored > 0 && (
          <span class="cell-note count-error">
            {formatCount(calibration.rows.unscored)} unscored
          </span>
        )}
      </td>
      <td class="numeric">
        {formatScore(calibration.kappa)}
        <IntervalNote text={formatScoreInterval(calibration.kappaCi)} />
      </td>
      <td class="numeric">
        {formatPassRate(calibration.accuracy)}
        <IntervalNote text={formatRateInterval(calibration.accuracyCi)} />
      </td>
      <td class="numeric">{formatScore(calibration.rocAuc)}</td>
      <td>
        <Link href={runPath(calibration.runId)}>
          <code>{calibration.runId.slice(0, 8)}</code>
        </Link>
        <span class="cell-note">{calibration.status}</span>
      </td>
    </tr>
  );
}
