import {
  countMetricStatuses,
  hasThresholdFailure,
  metricStatus,
} from "../../results/case-metrics.ts";
import type { ResultImage, TestResult, TrialResult } from "../../results/evaluation-result.ts";
import type { MetricData } from "../../results/metric-data.ts";
import {
  formatCostUsd,
  formatCount,
  formatPlural,
  formatScore,
  formatTokens,
  MISSING_VALUE,
} from "../format.ts";
import { renderReportText } from "./render-report-text.ts";
import { html, type SafeHtml } from "./safe-html.ts";
import { renderStatusBadge, STATUS_CLASSES, type StatusClass } from "./status-badge.ts";

/** Options of {@link renderTestCase}. */
export interface RenderTestCaseOptions {
  testResult: TestResult;
  /** The case's place in the run, counted from 1: shown as `#3` and used as its anchor. */
  position: number;
}

/**
 * One test case as a `<details>` block, open when it failed: input, actual and expected
 * output, then a card per metric (per trial with `repeat` > 1) with status, score, threshold,
 * reason or error, judge model, calls, cost, tokens and the collapsible verbose steps.
 */
export function renderTestCase(options: RenderTestCaseOptions): SafeHtml {
  const { testResult, position } = options;
  const status = caseStatus({ testResult });
  const repeated = testResult.trials.length > 0;
  const body = repeated
    ? testResult.trials.map((trial) => renderTrial({ trial, trialCount: testResult.trials.length }))
    : renderMetrics({ metricsData: testResult.metricsData });
  const field = (label: string, name: ResultImage["field"]) =>
    renderField({
      label,
      text: testResult[name],
      images: testResult.images.filter((image) => image.field === name),
    });
  return html`<details class="case case-${status}" id="case-${position}"${status === "fail" || status === "error" ? html` open` : null}>
<summary>${renderStatusBadge(status)}<span class="case-name">${renderReportText({ text: testResult.name })}</span><span class="case-meta">${describeCase({ testResult, position })}</span></summary>
<div class="case-body">
<div class="fields">
${field("Input", "input")}
${field("Actual output", "actualOutput")}
${testResult.expectedOutput === null ? null : field("Expected output", "expectedOutput")}
</div>
${body}
</div>
</details>`;
}

/** A failed case is "error" when metrics errored and none failed its threshold. */
function caseStatus(options: { testResult: TestResult }): StatusClass {
  const { testResult } = options;
  if (testResult.success === true) return "pass";
  if (testResult.success === null) return "score-only";
  // Errors only, no failed threshold: the judge is at fault, not the application.
  return hasThresholdFailure(testResult) ? "fail" : "error";
}

function describeCase(options: { testResult: TestResult; position: number }): string {
  const { testResult } = options;
  const parts = [`#${options.position}`];
  if (testResult.trials.length > 0) {
    parts.push(`${testResult.passedTrials}/${testResult.trials.length} trials passed`);
  } else {
    const counts = countMetricStatuses(testResult.metricsData);
    const shown: string[] = [];
    if (counts.failed > 0) shown.push(`${formatCount(counts.failed)} failed`);
    if (counts.errored > 0) shown.push(`${formatCount(counts.errored)} errored`);
    if (counts.passed > 0) shown.push(`${formatCount(counts.passed)} passed`);
    if (counts["score-only"] > 0) shown.push(`${formatCount(counts["score-only"])} score-only`);
    parts.push(
      `${formatPlural(testResult.metricsData.length, "metric")}${shown.length > 0 ? `: ${shown.join(", ")}` : ""}`,
    );
  }
  return parts.join(" · ");
}

function renderField(options: {
  label: string;
  text: string | null;
  images: readonly ResultImage[];
}): SafeHtml {
  const content =
    options.text === null
      ? html`<p class="text text-missing">(none)</p>`
      : html`<div class="text">${renderReportText({ text: options.text, images: options.images })}</div>`;
  return html`<section class="field"><h4>${options.label}</h4>${content}</section>`;
}

function renderTrial(options: { trial: TrialResult; trialCount: number }): SafeHtml {
  const { trial } = options;
  const status: StatusClass =
    trial.success === true ? "pass" : trial.success === false ? "fail" : "score-only";
  return html`<details class="trial"${trial.success === false ? html` open` : null}>
<summary>${renderStatusBadge(status)} Trial ${trial.trial + 1} of ${options.trialCount}</summary>
${renderMetrics({ metricsData: trial.metricsData })}
</details>`;
}

function renderMetrics(options: { metricsData: MetricData[] }): SafeHtml {
  if (options.metricsData.length === 0) {
    return html`<p class="empty">No metric was evaluated on this test case.</p>`;
  }
  return html`<div class="metrics">${options.metricsData.map((metric) => renderMetric({ metric }))}</div>`;
}

function renderMetric(options: { metric: MetricData }): SafeHtml {
  const { metric } = options;
  const status = STATUS_CLASSES[metricStatus(metric)];
  const explanation =
    status === "error"
      ? html`<p class="error-message"><strong>Error:</strong> ${renderReportText({ text: metric.error ?? "" })}</p>`
      : metric.reason === null
        ? null
        : html`<p class="metric-reason">${renderReportText({ text: metric.reason })}</p>`;
  const cached =
    metric.cachedJudgeCalls > 0 ? ` (${formatCount(metric.cachedJudgeCalls)} cached)` : "";
  const steps =
    metric.verboseLogs.trim() === ""
      ? null
      : html`<details class="steps"><summary>Verbose steps</summary><pre class="text">${renderReportText({ text: metric.verboseLogs })}</pre></details>`;
  return html`<article class="metric metric-${status}">
<header class="metric-header">${renderStatusBadge(status)}<h5>${metric.name}</h5><span class="metric-score">score <strong>${formatScore(metric.score)}</strong> · threshold ${metric.threshold === null ? "none" : formatScore(metric.threshold)}${metric.strictMode ? " · strict" : ""}</span></header>
${explanation}
<dl class="metric-facts">
<div><dt>Judge</dt><dd>${metric.evaluationModel ?? MISSING_VALUE}</dd></div>
<div><dt>Judge calls</dt><dd>${formatCount(metric.judgeCalls)}${cached}</dd></div>
<div><dt>Cost</dt><dd>${formatCostUsd(metric.evaluationCost)}</dd></div>
<div><dt>Tokens</dt><dd>${formatTokens(metric.inputTokens, metric.outputTokens)}</dd></div>
</dl>
${steps}
</article>`;
}
