import {
  formatCostUsd,
  formatCount,
  formatDuration,
  formatPassRate,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  MISSING_VALUE,
  showName,
} from "../../../report/format.ts";
import type { MetricAggregate, RunRow } from "../../api.ts";
import { Link } from "../components/link.tsx";
import { FakeJudgeLabel, RunStatusBadge } from "../components/status-badge.tsx";
import { TimeText } from "../components/time-text.tsx";
import { NO_IDENTIFIER, runPath, runsPath } from "../router.ts";

/** Metric names of the runs, in the order they first appear. */
function metricNamesOf(runs: RunRow[]): string[] {
  const names = new Set<string>();
  for (const run of runs) for (const metric of run.metrics) names.add(metric.name);
  return [...names];
}

/** The runs of one identifier: a heading, a link to its trends, a table with a column per metric. */
export function RunGroupTable(props: { identifier: string | null; runs: RunRow[] }) {
  const { identifier, runs } = props;
  const metricNames = metricNamesOf(runs);
  const title = identifier === null ? "No identifier" : showName(identifier);
  const headingId = `group-${identifier === null ? "none" : encodeURIComponent(identifier)}`;
  return (
    <section class="run-group" aria-labelledby={headingId}>
      <div class="run-group-heading">
        <h2 id={headingId}>{title}</h2>
        <p class="run-group-meta">
          {formatPlural(runs.length, "run")} on this page
          {identifier !== null && (
            <>
              {" · "}
              <Link href={runsPath({ identifier })}>Trends and all runs of {title}</Link>
            </>
          )}
          {identifier === null && (
            <>
              {" · "}
              <Link href={runsPath({ identifier: NO_IDENTIFIER })}>
                All runs without identifier
              </Link>
            </>
          )}
        </p>
      </div>
      <div class="table-scroll">
        <table class="data-table runs-table">
          <caption class="visually-hidden">Runs of {title}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Judge</th>
              <th scope="col">Cases</th>
              {metricNames.map((name) => (
                <th scope="col" key={name}>
                  {showName(name)}
                  <span class="column-note">mean · pass rate (95% CI)</span>
                </th>
              ))}
              <th scope="col" class="numeric">
                Judge calls
              </th>
              <th scope="col" class="numeric">
                Cost
              </th>
              <th scope="col" class="numeric">
                Duration
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <RunRowView key={run.id} run={run} metricNames={metricNames} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function RunRowView(props: { run: RunRow; metricNames: string[] }) {
  const { run } = props;
  const { cases } = run;
  return (
    <tr>
      <th scope="row">
        <Link href={runPath(run.id)} class="run-link">
          <code>{showName(run.shortId)}</code>
        </Link>
        <span class="cell-note">
          <TimeText iso={run.startedAt} withSeconds={false} />
          {run.shard !== null && ` · shard ${run.shard}`}
        </span>
      </th>
      <td>
        <RunStatusBadge status={run.status} />
        {run.stale && <span class="cell-note">{run.stale.reason}</span>}
      </td>
      <td class="run-judges">
        {run.judges.length === 0 ? MISSING_VALUE : run.judges.map(showName).join(", ")}
        {run.fakeJudge && <FakeJudgeLabel />}
      </td>
      <td class="case-counts">
        <span class="count-pass">{formatCount(cases.passed)} passed</span>,{" "}
        <span class="count-fail">{formatCount(cases.failed)} failed</span>,{" "}
        <span class="count-error">{formatCount(cases.errored)} errored</span>
        <span class="cell-note">
          of {formatPlural(cases.total, "case")}
          {cases.unscored > 0 && `, ${formatCount(cases.unscored)} unscored`}
        </span>
      </td>
      {props.metricNames.map((name) => {
        const metric = run.metrics.find((candidate) => candidate.name === name);
        return (
          <td key={name} class="numeric">
            {metric ? (
              <>
                <span class="metric-mean">{formatScore(metric.meanScore)}</span>
                <span class="metric-rate"> · {formatPassRate(metric.passRate)}</span>
                <IntervalsNote metric={metric} />
              </>
            ) : (
              MISSING_VALUE
            )}
          </td>
        );
      })}
      <td class="numeric">
        {formatCount(run.judgeCalls)}
        {run.cacheHits > 0 && (
          <span class="cell-note">{formatPlural(run.cacheHits, "cache hit")}</span>
        )}
      </td>
      <td class="numeric">{formatCostUsd(run.costUsd)}</td>
      <td class="numeric">
        {run.durationMs === null ? MISSING_VALUE : formatDuration(run.durationMs)}
      </td>
    </tr>
  );
}

/** A metric's 95% intervals under its mean and pass rate, in the runs table: `0.62–0.78 · 80.1–92.4%`. */
function IntervalsNote(props: { metric: MetricAggregate }) {
  const { metric } = props;
  const mean = formatScoreInterval(metric.meanScoreInterval);
  const rate = formatRateInterval(metric.passRateInterval);
  if (mean === "" && rate === "") return null;
  return (
    <span
      class="cell-note metric-interval"
      title={`95% confidence intervals: mean score ${mean || MISSING_VALUE}, pass rate ${rate || MISSING_VALUE}`}
    >
      {`${mean || MISSING_VALUE} · ${rate || MISSING_VALUE}`}
    </span>
  );
}
