import type { TestResult, TrialResult } from "../../results/evaluation-result.ts";
import type { MetricData } from "../../results/metric-data.ts";
import { formatCostUsd } from "../console-report.ts";
import {
  formatCount,
  formatPlural,
  formatScore,
  type MetricStatus,
  metricStatus,
  STATUS_LABELS,
} from "./metric-status.ts";
import { renderReportText } from "./render-report-text.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Options of {@link renderTestCase}. */
export interface RenderTestCaseOptions {
  testResult: TestResult;
}

/** A case is "error" when metrics errored and none failed its threshold. */
type CaseStatus = MetricStatus;

/**
 * One test case as a `<details>` block, open when it failed: input, actual and expected
 * output, then a card per metric (per trial with `repeat` > 1) with status, score, threshold,
 * reason or error, judge model, calls, cost, tokens and the collapsible verbose steps.
 */
export function renderTestCase(options: RenderTestCaseOptions): SafeHtml {
  const { testResult } = options;
  const status = caseStatus({ testResult });
  const repeated = testResult.trials.length > 0;
  const body = repeated
    ? testResult.trials.map((trial) => renderTrial({ trial, trialCount: testResult.trials.length }))
    : renderMetrics({ metricsData: testResult.metricsData });
  return html`<details class="case case-${status}" id="case-${testResult.index}"${status === "fail" || status === "error" ? html` open` : null}>
<summary><span class="badge badge-${status}">${STATUS_LABELS[status]}</span><span class="case-name">${renderReportText({ text: testResult.name })}</span><span class="case-meta">${describeCase({ testResult })}</span></summary>
<div class="case-body">
<div class="fields">
${renderField({ label: "Input", text: testResult.input })}
${renderField({ label: "Actual output", text: testResult.actualOutput })}
${testResult.expectedOutput === null ? null : renderField({ label: "Expected output", text: testResult.expectedOutput })}
</div>
${body}
</div>
</details>`;
}

function caseStatus(options: { testResult: TestResult }): CaseStatus {
  const { testResult } = options;
  if (testResult.success === true) return "pass";
  if (testResult.success === null) return "score-only";
  const runs = testResult.trials.length > 0 ? testResult.trials : [testResult];
  const statuses = runs.flatMap((run) => run.metricsData.map((metric) => metricStatus({ metric })));
  // Errors only, no failed threshold: the judge is at fault, not the application.
  return statuses.includes("error") && !statuses.includes("fail") ? "error" : "fail";
}

function describeCase(options: { testResult: TestResult }): string {
  const { testResult } = options;
  const parts = [`#${testResult.index}`];
  if (testResult.trials.length > 0) {
    parts.push(`${testResult.passedTrials}/${testResult.trials.length} trials passed`);
  } else {
    const counts = countStatuses({ metricsData: testResult.metricsData });
    const total = testResult.metricsData.length;
    const shown: string[] = [];
    if (counts.fail > 0) shown.push(`${counts.fail} failed`);
    if (counts.error > 0) shown.push(`${counts.error} errored`);
    if (counts.pass > 0) shown.push(`${counts.pass} passed`);
    if (counts["score-only"] > 0) shown.push(`${counts["score-only"]} score-only`);
    parts.push(
      `${formatPlural({ value: total, noun: "metric" })}${shown.length > 0 ? `: ${shown.join(", ")}` : ""}`,
    );
  }
  return parts.join(" · ");
}

function countStatuses(options: { metricsData: MetricData[] }): Record<MetricStatus, number> {
  const counts: Record<MetricStatus, number> = { pass: 0, fail: 0, error: 0, "score-only": 0 };
  for (const metric of options.metricsData) counts[metricStatus({ metric })] += 1;
  return counts;
}

function renderField(options: { label: string; text: string | null }): SafeHtml {
  const content =
    options.text === null
      ? html`<p class="text text-missing">(none)</p>`
      : html`<div class="text">${renderReportText({ text: options.text })}</div>`;
  return html`<section class="field"><h4>${options.label}</h4>${content}</section>`;
}

function renderTrial(options: { trial: TrialResult; trialCount: number }): SafeHtml {
  const { trial } = options;
  const status: CaseStatus =
    trial.success === true ? "pass" : trial.success === false ? "fail" : "score-only";
  return html`<details class="trial"${trial.success === false ? html` open` : null}>
<summary><span class="badge badge-${status}">${STATUS_LABELS[status]}</span> Trial ${trial.trial + 1} of ${options.trialCount}</summary>
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
  const status = metricStatus({ metric });
  const explanation =
    status === "error"
      ? html`<p class="error-message"><strong>Error:</strong> ${renderReportText({ text: metric.error ?? "" })}</p>`
      : metric.reason === null
        ? null
        : html`<p class="metric-reason">${renderReportText({ text: metric.reason })}</p>`;
  const cached = metric.cachedJudgeCalls > 0 ? ` (${metric.cachedJudgeCalls} cached)` : "";
  const tokens =
    metric.inputTokens === null && metric.outputTokens === null
      ? "–"
      : `${formatCount({ value: metric.inputTokens ?? 0 })} in · ${formatCount({ value: metric.outputTokens ?? 0 })} out`;
  const steps =
    metric.verboseLogs.trim() === ""
      ? null
      : html`<details class="steps"><summary>Verbose steps</summary><pre class="text">${renderReportText({ text: metric.verboseLogs })}</pre></details>`;
  return html`<article class="metric metric-${status}">
<header class="metric-header"><span class="badge badge-${status}">${STATUS_LABELS[status]}</span><h5>${metric.name}</h5><span class="metric-score">score <strong>${formatScore({ value: metric.score })}</strong> · threshold ${metric.threshold === null ? "none" : formatScore({ value: metric.threshold })}${metric.strictMode ? " · strict" : ""}</span></header>
${explanation}
<dl class="metric-facts">
<div><dt>Judge</dt><dd>${metric.evaluationModel ?? "–"}</dd></div>
<div><dt>Judge calls</dt><dd>${formatCount({ value: metric.judgeCalls })}${cached}</dd></div>
<div><dt>Cost</dt><dd>${formatCostUsd({ costUsd: metric.evaluationCost })}</dd></div>
<div><dt>Tokens</dt><dd>${tokens}</dd></div>
</dl>
${steps}
</article>`;
}
