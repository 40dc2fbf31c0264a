import {
  formatCostUsd,
  formatCount,
  formatDuration,
  formatPassRate,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  formatTokens,
  MISSING_VALUE,
  showName,
} from "../../../report/format.ts";
import type { ScoreHistogram as HistogramData, MetricAggregate, RunDetail } from "../../api.ts";
import { IntervalNote } from "../components/interval-note.tsx";
import { ScoreHistogram } from "../components/score-histogram.tsx";

/** The one-line verdict of the HTML report: ✓ PASS, ✗ FAIL or ! INCOMPLETE, and why. */
function Verdict(props: { detail: RunDetail }) {
  const { cases, status } = props.detail.run;
  const parts: string[] = [];
  let tone: "pass" | "fail" | "warn" = "pass";
  if (cases.total === 0) {
    parts.push(
      status === "running" ? "No test case has finished yet." : "No test cases were evaluated.",
    );
    tone = "warn";
  } else if (cases.failed + cases.errored > 0) {
    const errored = cases.errored > 0 ? ` (${formatCount(cases.errored)} with an error)` : "";
    parts.push(
      `${formatCount(cases.failed + cases.errored)} of ${formatPlural(cases.total, "test case")} failed${errored}.`,
    );
    tone = "fail";
  } else {
    parts.push(`All ${formatPlural(cases.total - cases.unscored, "scored test case")} passed.`);
  }
  if (cases.unscored > 0) {
    parts.push(`${formatCount(cases.unscored)} left unscored (run ${status}).`);
    if (tone === "pass") tone = "warn";
  }
  const label = { pass: "✓ PASS", fail: "✗ FAIL", warn: "! INCOMPLETE" }[tone];
  return (
    <p class={`verdict verdict-${tone}`}>
      <strong>{label}</strong> {parts.join(" ")}
    </p>
  );
}

/** Totals cards and per-metric cards with score histograms, as in the HTML report. */
export function RunSummary(props: { detail: RunDetail }) {
  const { detail } = props;
  const { run, spending } = detail;
  const scored = Math.max(1, run.cases.total - run.cases.unscored);
  const cards = [
    {
      label: "Test cases passed",
      value: `${formatCount(run.cases.passed)} / ${formatCount(run.cases.total)}`,
      detail: `${formatCount(run.cases.failed)} failed · ${formatCount(run.cases.errored)} errored · ${formatCount(run.cases.unscored)} unscored`,
    },
    {
      label: "Judge calls",
      value: formatCount(spending.judgeCalls),
      detail: `paid · ${formatPlural(spending.cacheHits, "cache hit")} · ${formatCount(spending.sharedCalls)} shared`,
    },
    {
      label: "Cost",
      value: formatCostUsd(spending.costUsd),
      detail:
        spending.costUsd === null
          ? "a judge's price is unknown"
          : `${formatCostUsd(spending.costUsd / scored)} per scored test case`,
    },
    {
      label: "Tokens",
      value: formatCount(spending.inputTokens + spending.outputTokens),
      detail: formatTokens(spending.inputTokens, spending.outputTokens),
    },
    {
      label: "Duration",
      value: run.durationMs === null ? MISSING_VALUE : formatDuration(run.durationMs),
      detail: `${formatPlural(run.cases.total, "test case")} · ${formatPlural(run.metrics.length, "metric")}`,
    },
    {
      label: "Saved by cache and sharing",
      value: formatPlural(spending.saved.judgeCalls, "call"),
      detail: `${formatCount(spending.saved.inputTokens + spending.saved.outputTokens)} tokens · ${formatCostUsd(spending.saved.costUsd)}`,
    },
  ];
  return (
    <>
      <Verdict detail={detail} />
      <section aria-labelledby="totals-heading">
        <h2 id="totals-heading">Totals</h2>
        <div class="cards">
          {cards.map((card) => (
            <div class="card" key={card.label}>
              <p class="card-label">{card.label}</p>
              <p class="card-value">{card.value}</p>
              <p class="card-detail">{card.detail}</p>
            </div>
          ))}
        </div>
      </section>
      <section aria-labelledby="metrics-heading">
        <h2 id="metrics-heading">Metrics</h2>
        {run.metrics.length === 0 ? (
          <p class="empty">No metric results yet.</p>
        ) : (
          <div class="metric-summaries">
            {run.metrics.map((metric) => (
              <MetricCard
                key={metric.name}
                metric={metric}
                histogram={detail.histograms.find((candidate) => candidate.metric === metric.name)}
              />
            ))}
          </div>
        )}
      </section>
    </>
  );
}

function MetricCard(props: { metric: MetricAggregate; histogram: HistogramData | undefined }) {
  const { metric, histogram } = props;
  return (
    <article class="card metric-summary">
      <h3>{showName(metric.name)}</h3>
      <p class="card-detail">{metric.lowerIsBetter ? "lower is better" : "higher is better"}</p>
      <dl class="metric-figures">
        <div>
          <dt>Mean score</dt>
          <dd>
            {formatScore(metric.meanScore)}
            <IntervalNote text={formatScoreInterval(metric.meanScoreInterval)} />
          </dd>
        </div>
        <div>
          <dt>Pass rate</dt>
          <dd>
            {formatPassRate(metric.passRate)}
            <IntervalNote text={formatRateInterval(metric.passRateInterval)} />
          </dd>
        </div>
        {histogram && histogram.threshold !== null && (
          <div>
            <dt>Threshold</dt>
            <dd>{formatScore(histogram.threshold)}</dd>
          </div>
        )}
      </dl>
      <ul class="metric-counts">
        <li class="count-pass">{formatCount(metric.passed)} passed</li>
        <li class="count-fail">{formatCount(metric.failed)} failed</li>
        <li class="count-error">{formatCount(metric.errored)} errored</li>
        {metric.scoreOnly > 0 && (
          <li class="count-score-only">{formatCount(metric.scoreOnly)} score-only</li>
        )}
      </ul>
      {histogram && <ScoreHistogram histogram={histogram} />}
    </article>
  );
}
