import { useMemo } from "preact/hooks";
import {
  formatCostUsd,
  formatPassRate,
  formatPlural,
  formatScore,
  MISSING_VALUE,
  showName,
} from "../../../report/format.ts";
import type { Trend } from "../../api.ts";
import { apiPath } from "../api-client.ts";
import { type ChartSeries, LineChart } from "../components/line-chart.tsx";
import { Link } from "../components/link.tsx";
import { ErrorNotice, Loading } from "../components/load-state.tsx";
import { RunStatusBadge } from "../components/status-badge.tsx";
import { TimeText } from "../components/time-text.tsx";
import { navigate, runPath, updateQuery } from "../router.ts";
import { useApi } from "../use-api.ts";

const TREND_RUNS = 100;
const SCORE_RANGE: [number, number] = [0, 1];

/**
 * An identifier's trends: per metric, its mean score and pass rate over the runs (a line
 * chart each), and the cost per run. Clicking a point opens that run; the same numbers are
 * in a table below, each run a link, for keyboard and screen-reader users. Runs scored by
 * the fake judge are left out unless `includeFake` (a toggle, kept in the URL as `fake=1`).
 */
export function Trends(props: { identifier: string | null; includeFake: boolean }) {
  const trend = useApi<Trend>(
    apiPath("/api/trends", {
      identifier: props.identifier ?? "",
      limit: TREND_RUNS,
      fake: props.includeFake ? 1 : null,
    }),
  );
  const fakeRuns = trend.data?.fakeRuns ?? 0;
  return (
    <section class="trends" aria-labelledby="trends-heading">
      <h2 id="trends-heading">Trends</h2>
      {(fakeRuns > 0 || props.includeFake) && (
        <label class="filter fake-toggle">
          <input
            type="checkbox"
            checked={props.includeFake}
            onChange={(event) => updateQuery({ fake: event.currentTarget.checked ? "1" : null })}
          />
          <span>Include {formatPlural(fakeRuns, "fake-judge run")} (scores not real)</span>
        </label>
      )}
      {trend.error && <ErrorNotice error={trend.error} what="trends" />}
      {trend.data === null && !trend.error && <Loading what="trends" />}
      {trend.data !== null && <TrendCharts trend={trend.data} />}
    </section>
  );
}

function TrendCharts(props: { trend: Trend }) {
  const { trend } = props;
  const charts = useMemo(() => {
    const x = trend.points.map((point) => Date.parse(point.startedAt) / 1000);
    const metricCharts = trend.metricNames.map((name) => ({
      name,
      series: [
        {
          label: "Mean score",
          values: trend.points.map((point) => point.metrics[name]?.meanScore ?? null),
          format: (value: number) => formatScore(value),
          colorVariable: "--chart-1",
        },
        {
          label: "Pass rate",
          values: trend.points.map((point) => point.metrics[name]?.passRate ?? null),
          format: (value: number) => formatPassRate(value),
          colorVariable: "--chart-2",
        },
      ] satisfies ChartSeries[],
    }));
    const cost: ChartSeries[] = [
      {
        label: "Cost",
        values: trend.points.map((point) => point.costUsd),
        format: (value: number) => formatCostUsd(value),
        colorVariable: "--chart-3",
      },
    ];
    return { x, metricCharts, cost };
  }, [trend]);

  if (trend.points.length === 0) return <p class="empty">No runs to draw.</p>;
  const pick = (index: number) => {
    const point = trend.points[index];
    if (point) navigate(runPath(point.runId));
  };
  const runs = formatPlural(trend.points.length, "run");
  return (
    <>
      <p class="section-note">
        The last {runs}, oldest first. Click a point to open its run.
        {trend.fakeRuns > 0 &&
          (trend.includesFake
            ? ` ${formatPlural(trend.fakeRuns, "run")} of the fake judge included: their scores are not real.`
            : ` ${formatPlural(trend.fakeRuns, "run")} of the fake judge left out.`)}
      </p>
      <div class="charts">
        {charts.metricCharts.map((chart) => (
          <LineChart
            key={chart.name}
            title={`${showName(chart.name)}: mean score and pass rate`}
            description={`Line chart of ${showName(chart.name)}'s mean score and pass rate over ${runs}; the table below lists the values.`}
            x={charts.x}
            series={chart.series}
            yRange={SCORE_RANGE}
            onPick={pick}
          />
        ))}
        <LineChart
          title="Cost per run"
          description={`Line chart of the judge cost of each of ${runs}; the table below lists the values.`}
          x={charts.x}
          series={charts.cost}
          onPick={pick}
        />
      </div>
      <details class="trend-table">
        <summary>Trend values as a table</summary>
        <TrendTable trend={trend} />
      </details>
    </>
  );
}

function TrendTable(props: { trend: Trend }) {
  const { trend } = props;
  return (
    <div class="table-scroll">
      <table class="data-table">
        <caption class="visually-hidden">Trend values per run, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            {trend.metricNames.map((name) => (
              <th scope="col" key={name}>
                {showName(name)}
                <span class="column-note">mean · pass rate</span>
              </th>
            ))}
            <th scope="col" class="numeric">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {trend.points.map((point) => (
            <tr key={point.runId}>
              <th scope="row">
                <Link href={runPath(point.runId)}>
                  <TimeText iso={point.startedAt} withSeconds={false} />
                </Link>
              </th>
              <td>
                <RunStatusBadge status={point.status} />
                {point.fakeJudge && <span class="cell-note">fake judge: scores not real</span>}
              </td>
              {trend.metricNames.map((name) => {
                const metric = point.metrics[name];
                return (
                  <td key={name} class="numeric">
                    {metric
                      ? `${formatScore(metric.meanScore)} · ${formatPassRate(metric.passRate)}`
                      : MISSING_VALUE}
                  </td>
                );
              })}
              <td class="numeric">{formatCostUsd(point.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
