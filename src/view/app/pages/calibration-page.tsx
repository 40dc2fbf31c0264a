import {
  describeIncompleteRun,
  describeLabelCounts,
  describeLabels,
  describePositiveCall,
} from "../../../report/calibration/describe-calibration.ts";
import {
  formatCostUsd,
  formatCount,
  formatPassRate,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  showName,
} from "../../../report/format.ts";
import type { CalibrationReport } from "../../../results/calibration-report.ts";
import { FAKE_JUDGE_NOTICE } from "../../../results/fake-judge-notice.ts";
import type { CalibrationDetail } from "../../calibration-views.ts";
import { IntervalNote } from "../components/interval-note.tsx";
import { Link } from "../components/link.tsx";
import { ErrorNotice, Loading } from "../components/load-state.tsx";
import { RunStatusBadge } from "../components/status-badge.tsx";
import { TimeText } from "../components/time-text.tsx";
import { calibrationsPath, runPath } from "../router.ts";
import { useApi } from "../use-api.ts";
import { useTitle } from "../use-title.ts";
import { UnscoredRows, WrongRows } from "./calibration-rows.tsx";
import { ConfusionMatrix, ThresholdTable } from "./calibration-tables.tsx";
import { runTitle } from "./run-header.tsx";

/**
 * `/calibrations/:id`: a calibration as `verdict calibrate --output html` shows it — what was
 * calibrated and against which data, the agreement figures with their 95% intervals, the
 * confusion matrix, the thresholds that maximise κ and F1, and the rows the metric got wrong
 * (input, output, people's label, the score and the judge's reason, each a link to its case in
 * the run that scored the rows).
 */
export function CalibrationPage(props: { calibrationId: string }) {
  const detail = useApi<CalibrationDetail>(
    `/api/calibrations/${encodeURIComponent(props.calibrationId)}`,
  );
  useTitle(detail.data ? `Calibration of ${detail.data.report.metric.name}` : "Calibration");
  if (detail.error && detail.data === null) {
    return (
      <div class="page">
        <h1 tabIndex={-1}>Calibration</h1>
        <ErrorNotice error={detail.error} what="calibration" />
      </div>
    );
  }
  if (detail.data === null) {
    return (
      <div class="page" aria-busy="true">
        <h1 tabIndex={-1}>Calibration</h1>
        <Loading what="calibration" />
      </div>
    );
  }
  const { report } = detail.data;
  const incomplete = describeIncompleteRun(report);
  return (
    <div class="page" aria-busy={detail.loading}>
      <CalibrationHeader detail={detail.data} />
      {report.fakeJudge && (
        <p class="notice notice-warn" role="note">
          <strong>Fake judge.</strong> {FAKE_JUDGE_NOTICE}
        </p>
      )}
      {incomplete !== null && (
        <p class="verdict verdict-warn">
          <strong>! INCOMPLETE</strong> {incomplete}
        </p>
      )}
      <AgreementFigures report={report} />
      <ConfusionMatrix report={report} />
      <ThresholdTable report={report} />
      <WrongRows detail={detail.data} />
      <UnscoredRows report={report} />
    </div>
  );
}

function CalibrationHeader(props: { detail: CalibrationDetail }) {
  const { report, run } = props.detail;
  const { metric } = report;
  return (
    <header class="page-heading run-header">
      <div class="run-heading">
        <p class="breadcrumbs">
          <Link href={calibrationsPath()}>Calibrations</Link>
        </p>
        <h1 tabIndex={-1}>{`${showName(metric.name)} against human labels`}</h1>
        <dl class="run-facts">
          <div>
            <dt>Data</dt>
            <dd>
              {report.data.source === null ? "rows in memory" : <code>{report.data.source}</code>}
              {` · ${formatPlural(report.rows.total, "row")}`}
              {report.data.limit !== null && ` (limit ${formatCount(report.data.limit)})`}
              {` · ${describeLabels(report)}`}
            </dd>
          </div>
          <div>
            <dt>Judge</dt>
            <dd>
              {metric.judge === null ? "none (no row scored)" : <code>{metric.judge}</code>}
              {` · threshold ${formatScore(metric.threshold)}`}
              {metric.strictMode && " (strict mode)"}
            </dd>
          </div>
          <div>
            <dt>Positive</dt>
            <dd>{describePositiveCall(metric)}</dd>
          </div>
          <div>
            <dt>Run</dt>
            <dd>
              {run === null ? (
                <>
                  <code>{showName(report.runId)}</code> (no longer stored)
                </>
              ) : (
                <Link href={runPath(run.id)}>{`${runTitle(run)} (${showName(run.shortId)})`}</Link>
              )}
            </dd>
          </div>
          <div>
            <dt>Computed</dt>
            <dd>
              <TimeText iso={report.createdAt} />
            </dd>
          </div>
          <div>
            <dt>Calibration</dt>
            <dd>
              <code>{showName(report.id)}</code>
            </dd>
          </div>
        </dl>
      </div>
      <div class="run-header-side">
        <RunStatusBadge status={report.status} />
      </div>
    </header>
  );
}

function AgreementFigures(props: { report: CalibrationReport }) {
  const { report } = props;
  const { spending } = report;
  const cards = [
    {
      label: (
        <>
          Cohen's <span class="symbol">κ</span>
        </>
      ),
      key: "kappa",
      value: formatScore(report.kappa),
      interval: formatScoreInterval(report.kappaCi),
      detail: "agreement beyond chance: 0 chance, 1 perfect",
    },
    {
      label: "Accuracy",
      key: "Accuracy",
      value: formatPassRate(report.accuracy),
      interval: formatRateInterval(report.accuracyCi),
      detail: "share of rows the metric got right (Wilson interval)",
    },
    {
      label: "Precision",
      key: "Precision",
      value: formatPassRate(report.precision),
      interval: "",
      detail: "of the metric's positive calls",
    },
    {
      label: "Recall",
      key: "Recall",
      value: formatPassRate(report.recall),
      interval: "",
      detail: "of people's positive rows",
    },
    {
      label: "F1",
      key: "F1",
      value: formatScore(report.f1),
      interval: "",
      detail: "harmonic mean of the two",
    },
    {
      label: "ROC AUC",
      key: "ROC AUC",
      value: formatScore(report.rocAuc),
      interval: "",
      detail: "of the scores, ties count half",
    },
    {
      label: "Judge calls",
      key: "Judge calls",
      value: formatCount(spending.judgeCalls),
      interval: "",
      detail: `${formatPlural(spending.cacheHits, "cache hit")} · ${formatCostUsd(spending.costUsd)}`,
    },
  ];
  return (
    <section aria-labelledby="agreement-heading">
      <h2 id="agreement-heading">
        Agreement over {formatPlural(report.rows.scored, "scored row")} (
        {describeLabelCounts(report)})
      </h2>
      <div class="cards">
        {cards.map((card) => (
          <div class="card" key={card.key}>
            <p class="card-label">{card.label}</p>
            <p class="card-value">
              {card.value}
              <IntervalNote text={card.interval} />
            </p>
            <p class="card-detail">{card.detail}</p>
          </div>
        ))}
      </div>
    </section>
  );
}
