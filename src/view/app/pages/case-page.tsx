import { formatCount, formatDuration, showName } from "../../../report/format.ts";
import type { CaseDetail } from "../../case-views.ts";
import { Link } from "../components/link.tsx";
import { ErrorNotice, Loading } from "../components/load-state.tsx";
import { CaseStatusBadge, MetricOutcomeBadge } from "../components/status-badge.tsx";
import { TextBlock } from "../components/text-block.tsx";
import { casePath, runPath, runsPath } from "../router.ts";
import { useApi } from "../use-api.ts";
import { useTitle } from "../use-title.ts";
import { CaseImages } from "./case-images.tsx";
import { MetricDetail } from "./metric-detail.tsx";
import { SpanTree } from "./span-tree.tsx";

/**
 * `/runs/:run/cases/:key`: a case in full — its fields and images, each metric with score,
 * threshold, reason, the judge's steps as tables and its judge calls; every trial of a
 * `repeat` run; the span tree of a component run; previous / next in run order.
 */
export function CasePage(props: { runId: string; caseKey: string }) {
  const detail = useApi<CaseDetail>(
    `/api/runs/${encodeURIComponent(props.runId)}/cases/${encodeURIComponent(props.caseKey)}`,
  );
  useTitle(detail.data ? detail.data.name : "Test case");
  if (detail.error) {
    return (
      <div class="page">
        <h1 tabIndex={-1}>Test case</h1>
        <ErrorNotice error={detail.error} what="test case" />
      </div>
    );
  }
  if (detail.data === null) {
    return (
      <div class="page" aria-busy="true">
        <h1 tabIndex={-1}>Test case</h1>
        <Loading what="test case" />
      </div>
    );
  }
  const data = detail.data;
  return (
    <div class="page" aria-busy={detail.loading}>
      <header class="page-heading">
        <p class="breadcrumbs">
          <Link href={runsPath()}>Runs</Link> /{" "}
          <Link href={runPath(data.runId)}>Run {showName(data.runId.slice(0, 8))}</Link> / case{" "}
          {formatCount(data.position)}
        </p>
        <h1 tabIndex={-1}>{showName(data.name)}</h1>
        <div class="case-facts">
          <CaseStatusBadge status={data.status} />
          <span>Case {formatCount(data.position)}</span>
          {data.file !== null && (
            <span>
              File <code>{showName(data.file)}</code>
            </span>
          )}
          {data.durationMs !== null && <span>took {formatDuration(data.durationMs)}</span>}
          {data.tags.map((tag) => (
            <span class="tag" key={tag}>
              {showName(tag)}
            </span>
          ))}
        </div>
        <CaseNavigation data={data} label="Other test cases" />
      </header>

      <section aria-labelledby="fields-heading">
        <h2 id="fields-heading">Test case</h2>
        <div class="fields">
          <div class="field">
            <h3>Input</h3>
            <TextBlock text={data.input} />
          </div>
          <div class="field">
            <h3>Output</h3>
            <TextBlock text={data.actualOutput} missing="No output" />
          </div>
          <div class="field">
            <h3>Expected output</h3>
            <TextBlock text={data.expectedOutput} missing="No expected output" />
          </div>
        </div>
        {data.context !== null && <TextList title="Context" items={data.context} />}
        {data.retrievalContext !== null && (
          <TextList title="Retrieval context" items={data.retrievalContext} />
        )}
        {data.images.length > 0 && (
          <>
            <h3>Images</h3>
            <CaseImages images={data.images} />
          </>
        )}
      </section>

      <section aria-labelledby="verdicts-heading">
        <h2 id="verdicts-heading">Metrics</h2>
        {data.metrics.length === 0 ? (
          <p class="empty">No metric was scored on this case.</p>
        ) : (
          <div class="metrics">
            {data.metrics.map((metric) => (
              <MetricDetail key={metric.name} metric={metric} />
            ))}
          </div>
        )}
      </section>

      {data.trials.length > 1 && (
        <section aria-labelledby="trials-heading">
          <h2 id="trials-heading">Trials</h2>
          <p class="section-note">
            {formatCount(data.trials.filter((trial) => trial.success !== false).length)} of{" "}
            {formatCount(data.trials.length)} trials passed; the metrics above are the first
            trial's.
          </p>
          {data.trials.map((trial) => (
            <details class="trial" key={trial.trial} open={trial.success === false}>
              <summary>
                <MetricOutcomeBadge success={trial.success} error={null} /> Trial {trial.trial + 1}{" "}
                of {data.trials.length}
              </summary>
              <div class="metrics">
                {trial.metrics.map((metric) => (
                  <MetricDetail key={metric.name} metric={metric} />
                ))}
              </div>
            </details>
          ))}
        </section>
      )}

      {data.trace !== null && (
        <section aria-labelledby="trace-heading">
          <h2 id="trace-heading">Spans</h2>
          <SpanTree root={data.trace} />
        </section>
      )}
      <CaseNavigation data={data} label="Other test cases, at the end" />
    </div>
  );
}

function TextList(props: { title: string; items: string[] }) {
  return (
    <>
      <h3>{props.title}</h3>
      <ol class="text-list">
        {props.items.map((item, index) => (
          <li key={index}>
            <TextBlock text={item} />
          </li>
        ))}
      </ol>
    </>
  );
}

function CaseNavigation(props: { data: CaseDetail; label: string }) {
  const { data } = props;
  return (
    <nav class="case-nav" aria-label={props.label}>
      {data.previousKey !== null ? (
        <Link href={casePath(data.runId, data.previousKey)} rel="prev">
          ← Previous case
        </Link>
      ) : (
        <span class="case-nav-none">First case</span>
      )}
      <Link href={runPath(data.runId)}>All cases of this run</Link>
      {data.nextKey !== null ? (
        <Link href={casePath(data.runId, data.nextKey)} rel="next">
          Next case →
        </Link>
      ) : (
        <span class="case-nav-none">Last case</span>
      )}
    </nav>
  );
}
