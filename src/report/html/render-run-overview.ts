import type { EvaluationResult, MetricSummary } from "../../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE, usesFakeJudge } from "../../results/fake-judge-notice.ts";
import {
  describeRunStatus,
  formatCostUsd,
  formatCount,
  formatDuration,
  formatPassRate,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  formatTokens,
  RUN_STATUS_MEANING,
} from "../format.ts";
import { metricDistributions } from "../score-bins.ts";
import { renderScoreHistogram } from "./render-score-histogram.ts";
import { renderTime } from "./render-time.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Options of {@link renderRunOverview}. */
export interface RenderRunOverviewOptions {
  result: EvaluationResult;
  title: string;
  /** ISO time the run started; `null` when unknown. */
  startedAt: string | null;
  generatedAt: Date;
}

/**
 * The top of the report: title, run id, identifier, status and dates, a banner when the
 * scores came from the fake judge (they are not real), a one-line verdict,
 * cards with the totals (cases, judge calls, cache, cost, tokens, duration) and one card per
 * metric with its mean score, pass rate, counts and score histogram.
 */
export function renderRunOverview(options: RenderRunOverviewOptions): SafeHtml {
  const { result } = options;
  return html`<header class="report-header">
<div class="report-heading">
<h1>${options.title}</h1>
<dl class="run-facts">
<div><dt>Run</dt><dd><code>${result.testRunId}</code></dd></div>
${result.identifier === null ? null : html`<div><dt>Identifier</dt><dd><code>${result.identifier}</code></dd></div>`}
${options.startedAt === null ? null : html`<div><dt>Started</dt><dd>${renderTime({ iso: options.startedAt })}</dd></div>`}
<div><dt>Report generated</dt><dd>${renderTime({ iso: options.generatedAt.toISOString() })}</dd></div>
</dl>
</div>
<p class="run-status run-status-${result.summary.status}" title="${RUN_STATUS_MEANING}">${describeRunStatus(result.summary.status)}</p>
</header>
${usesFakeJudge(result.testResults) ? html`<p class="fake-judge-notice" role="alert"><strong>Fake judge.</strong> ${FAKE_JUDGE_NOTICE}</p>` : null}
${renderVerdict({ result })}
<section aria-labelledby="totals-heading">
<h2 id="totals-heading">Totals</h2>
${renderTotals({ result })}
</section>
<section aria-labelledby="metrics-heading">
<h2 id="metrics-heading">Metrics</h2>
${renderMetricSummaries({ result })}
</section>
${renderFlakyCases({ result })}`;
}

function renderVerdict(options: { result: EvaluationResult }): SafeHtml {
  const { testCases, status } = options.result.summary;
  const failed = testCases.failed;
  const unscored = testCases.unscored;
  const parts: string[] = [];
  let tone: "pass" | "fail" | "warn" = "pass";
  if (testCases.total === 0) {
    parts.push("No test cases were evaluated.");
    tone = "warn";
  } else if (failed > 0) {
    parts.push(`${formatCount(failed)} of ${formatPlural(testCases.total, "test case")} failed.`);
    tone = "fail";
  } else {
    parts.push(`All ${formatPlural(testCases.total - unscored, "scored test case")} passed.`);
  }
  if (unscored > 0) {
    parts.push(`${formatCount(unscored)} left unscored (run ${status}).`);
    if (tone === "pass") tone = "warn";
  }
  const label = { pass: "✓ PASS", fail: "✗ FAIL", warn: "! INCOMPLETE" }[tone];
  return html`<p class="verdict verdict-${tone}"><strong>${label}</strong> ${parts.join(" ")}</p>`;
}

function renderTotals(options: { result: EvaluationResult }): SafeHtml {
  const { summary } = options.result;
  const { testCases, saved } = summary;
  const cards: Array<{ label: string; value: string; detail: string }> = [
    {
      label: "Test cases passed",
      value: `${formatCount(testCases.passed)} / ${formatCount(testCases.total)}`,
      detail: `${formatCount(testCases.failed)} failed · ${formatCount(testCases.unscored)} unscored`,
    },
    {
      label: "Judge calls",
      value: formatCount(summary.judgeCalls),
      detail: `paid · ${formatPlural(summary.cacheHits, "cache hit")} · ${formatCount(summary.sharedCalls)} shared`,
    },
    {
      label: "Cost",
      value: formatCostUsd(summary.costUsd),
      detail:
        summary.costUsd === null
          ? "a judge's price is unknown"
          : `${formatCostUsd(summary.costUsd / Math.max(1, testCases.total - testCases.unscored))} per scored test case`,
    },
    {
      label: "Tokens",
      value: formatCount(summary.inputTokens + summary.outputTokens),
      detail: formatTokens(summary.inputTokens, summary.outputTokens),
    },
    {
      label: "Duration",
      value: formatDuration(summary.durationMs),
      detail: `${formatPlural(testCases.total, "test case")} · ${formatPlural(summary.metrics.length, "metric")}`,
    },
    {
      label: "Saved by cache and sharing",
      value: formatPlural(saved.judgeCalls, "call"),
      detail: `${formatCount(saved.inputTokens + saved.outputTokens)} tokens · ${formatCostUsd(saved.costUsd)}`,
    },
  ];
  return html`<div class="cards">${cards.map(
    (card) =>
      html`<div class="card"><p class="card-label">${card.label}</p><p class="card-value">${card.value}</p><p class="card-detail">${card.detail}</p></div>`,
  )}</div>`;
}

function renderMetricSummaries(options: { result: EvaluationResult }): SafeHtml {
  const { result } = options;
  if (result.summary.metrics.length === 0) return html`<p class="empty">No metric results.</p>`;
  const distributions = metricDistributions(result.testResults);
  return html`<div class="metric-summaries">${result.summary.metrics.map((summary) => {
    const { scores, threshold } = distributions.get(summary.name) ?? {
      scores: [],
      threshold: null,
    };
    return renderMetricSummary({ summary, scores, threshold });
  })}</div>`;
}

function renderMetricSummary(options: {
  summary: MetricSummary;
  scores: number[];
  threshold: number | null;
}): SafeHtml {
  const { summary } = options;
  const counts = [
    html`<li class="count-pass">${formatCount(summary.passed)} passed</li>`,
    html`<li class="count-fail">${formatCount(summary.failed)} failed</li>`,
    html`<li class="count-error">${formatCount(summary.errored)} errored</li>`,
    summary.scoreOnly > 0
      ? html`<li class="count-score-only">${formatCount(summary.scoreOnly)} score-only</li>`
      : null,
  ];
  return html`<article class="card metric-summary">
<h3>${summary.name}</h3>
<dl class="metric-figures">
<div><dt>Mean score</dt><dd>${formatScore(summary.meanScore)}${renderInterval(formatScoreInterval(summary.meanScoreInterval))}</dd></div>
<div><dt>Pass rate</dt><dd>${formatPassRate(summary.passRate)}${renderInterval(formatRateInterval(summary.passRateInterval))}</dd></div>
${options.threshold === null ? null : html`<div><dt>Threshold</dt><dd>${formatScore(options.threshold)}</dd></div>`}
</dl>
<ul class="metric-counts">${counts}</ul>
${renderScoreHistogram({ metricName: summary.name, scores: options.scores, threshold: options.threshold })}
</article>`;
}

/** A 95% interval under its figure; nothing when there is none. */
function renderInterval(text: string): SafeHtml | null {
  return text === ""
    ? null
    : html`<small class="interval" title="95% confidence interval">95% CI ${text}</small>`;
}

/** Cases of a `repeat` run that passed some trials and failed others. */
function renderFlakyCases(options: { result: EvaluationResult }): SafeHtml | null {
  const flaky = options.result.summary.flakyCases ?? [];
  if (flaky.length === 0) return null;
  return html`<section aria-labelledby="flaky-heading">
<h2 id="flaky-heading">Flaky cases</h2>
<p>Passed some trials and failed others: ${formatPlural(flaky.length, "case")}.</p>
<ul class="flaky-cases">${flaky.map(
    (entry) =>
      html`<li><a href="#case-${String(entry.position)}">#${String(entry.position)} ${entry.name}</a>: passed ${String(entry.passedTrials)}/${String(entry.trials)} trials <small>(95% CI ${formatRateInterval(entry.passRateInterval)})</small></li>`,
  )}</ul>
</section>`;
}
