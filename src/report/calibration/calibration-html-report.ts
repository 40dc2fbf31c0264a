import type {
  CalibrationExample,
  CalibrationReport,
  ThresholdChoice,
} from "../../results/calibration-report.ts";
import { FAKE_JUDGE_NOTICE } from "../../results/fake-judge-notice.ts";
import {
  describeRunStatus,
  formatCostUsd,
  formatCount,
  formatPassRate,
  formatPlural,
  formatScore,
  RUN_STATUS_MEANING,
} from "../format.ts";
import { renderReportPage } from "../html/render-report-page.ts";
import { renderReportText } from "../html/render-report-text.ts";
import { renderTime } from "../html/render-time.ts";
import { html, type SafeHtml } from "../html/safe-html.ts";
import {
  describeIncompleteRun,
  describeLabelCounts,
  describeLabels,
  describePositiveCall,
  describeThresholdRule,
  formatInterval,
  lineOf,
  placeOf,
} from "./describe-calibration.ts";

/** The tables of a calibration page, on top of the report's stylesheet. */
const CALIBRATION_STYLES = `
.figures { border-collapse: collapse; margin: 0.25rem 0 0; font-variant-numeric: tabular-nums; background: var(--surface); border: 1px solid var(--border); border-radius: 8px; }
.figures th, .figures td { padding: 0.375rem 0.875rem; border-bottom: 1px solid var(--border); text-align: right; }
.figures th:first-child, .figures td:first-child { text-align: left; }
.figures thead th { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--text-muted); }
.figures tr:last-child td { border-bottom: none; }
.agree { color: var(--pass); font-weight: 600; }
.disagree { color: var(--fail); font-weight: 600; }
.table-scroll { overflow-x: auto; }
.symbol { text-transform: none; }
`;

/** Options of {@link renderCalibrationHtmlReport}. */
export interface RenderCalibrationHtmlReportOptions {
  report: CalibrationReport;
  /** @default "verdict calibration: <metric>" */
  title?: string;
  /** When the page was made, shown in the header. @default new Date() */
  generatedAt?: Date;
}

function card(label: string | SafeHtml, value: string, detail: string): SafeHtml {
  return html`<div class="card"><p class="card-label">${label}</p><p class="card-value">${value}</p><p class="card-detail">${detail}</p></div>`;
}

function thresholdRow(label: string, choice: ThresholdChoice | null, current: number): SafeHtml {
  if (choice === null)
    return html`<tr><td>${label}</td><td colspan="5">${formatScore(null)}</td></tr>`;
  const isCurrent = Math.abs(choice.threshold - current) < 1e-12;
  return html`<tr><td>${label}${isCurrent ? " (the current threshold)" : ""}</td><td>${formatScore(choice.threshold)}</td><td>${formatScore(choice.kappa)}</td><td>${formatScore(choice.f1)}</td><td>${formatPassRate(choice.accuracy)}</td><td>${formatPassRate(choice.precision)} / ${formatPassRate(choice.recall)}</td></tr>`;
}

function renderExample(example: CalibrationExample): SafeHtml {
  const side = (positive: boolean) => (positive ? "positive" : "negative");
  return html`<details class="case case-fail">
<summary><span class="case-name">${example.name}</span><span class="case-meta">${lineOf(example)} · people: ${side(example.expected)} (label "${example.label}") · metric: ${side(example.predicted)} · score ${formatScore(example.score)}</span></summary>
<div class="case-body">
<div class="fields">
<div class="field"><h4>Input</h4><pre class="text">${renderReportText({ text: example.input })}</pre></div>
<div class="field"><h4>Output</h4><pre class="text">${renderReportText({ text: example.actualOutput })}</pre></div>
</div>
${example.reason === null ? null : html`<h4>Reason</h4><p class="metric-reason">${renderReportText({ text: example.reason })}</p>`}
</div>
</details>`;
}

/**
 * A calibration report as one self-contained HTML page (the HTML report's stylesheet and
 * Content-Security-Policy: no script, no external asset): what was calibrated, the agreement
 * figures with their 95% intervals, the confusion matrix, the best thresholds and the rows the
 * metric got wrong, each expandable to its input, output and reason. Every value is escaped.
 * @example
 * writeFileSync("calibration.html", renderCalibrationHtmlReport({ report }));
 */
export function renderCalibrationHtmlReport(options: RenderCalibrationHtmlReportOptions): string {
  const { report } = options;
  const { metric, confusion } = report;
  const title = options.title ?? `verdict calibration: ${metric.name}`;
  const incomplete = describeIncompleteRun(report);
  const shown = report.disagreements.length;
  const body = html`<main>
<header class="report-header">
<div class="report-heading">
<h1>${title}</h1>
<dl class="run-facts">
<div><dt>Data</dt><dd><code>${report.data.source ?? "rows in memory"}</code> · ${formatPlural(report.rows.total, "row")} · ${describeLabels(report)}</dd></div>
<div><dt>Judge</dt><dd><code>${metric.judge ?? "none"}</code></dd></div>
<div><dt>Positive</dt><dd>${describePositiveCall(metric)}</dd></div>
<div><dt>Run</dt><dd><code>${report.runId}</code></dd></div>
<div><dt>Calibration</dt><dd><code>${report.id}</code></dd></div>
<div><dt>Computed</dt><dd>${renderTime({ iso: report.createdAt })}</dd></div>
<div><dt>Report generated</dt><dd>${renderTime({ iso: (options.generatedAt ?? new Date()).toISOString() })}</dd></div>
</dl>
</div>
<p class="run-status run-status-${report.status}" title="${RUN_STATUS_MEANING}">${describeRunStatus(report.status)}</p>
</header>
${report.fakeJudge ? html`<p class="fake-judge-notice" role="alert"><strong>Fake judge.</strong> ${FAKE_JUDGE_NOTICE}</p>` : null}
${incomplete === null ? null : html`<p class="verdict verdict-warn"><strong>! INCOMPLETE</strong> ${incomplete}</p>`}
<section aria-labelledby="agreement-heading">
<h2 id="agreement-heading">Agreement over ${formatPlural(report.rows.scored, "scored row")} (${describeLabelCounts(report)})</h2>
<div class="cards">
${card(html`Cohen's <span class="symbol">κ</span>`, formatScore(report.kappa), `95% CI ${formatInterval(report.kappaCi, "score")}`)}
${card("Accuracy", formatPassRate(report.accuracy), `95% CI ${formatInterval(report.accuracyCi, "rate")} (Wilson)`)}
${card("Precision", formatPassRate(report.precision), "of the metric's positive calls")}
${card("Recall", formatPassRate(report.recall), "of people's positive rows")}
${card("F1", formatScore(report.f1), "harmonic mean of the two")}
${card("ROC AUC", formatScore(report.rocAuc), "of the scores, ties count half")}
${card("Judge calls", formatCount(report.spending.judgeCalls), `${formatPlural(report.spending.cacheHits, "cache hit")} · ${formatCostUsd(report.spending.costUsd)}`)}
</div>
</section>
<section aria-labelledby="confusion-heading">
<h2 id="confusion-heading">Confusion matrix</h2>
<div class="table-scroll"><table class="figures">
<thead><tr><th scope="col">Rows</th><th scope="col">Metric: positive</th><th scope="col">Metric: negative</th></tr></thead>
<tbody>
<tr><th scope="row">People: positive</th><td class="agree">${formatCount(confusion.truePositive)}</td><td class="disagree">${formatCount(confusion.falseNegative)}</td></tr>
<tr><th scope="row">People: negative</th><td class="disagree">${formatCount(confusion.falsePositive)}</td><td class="agree">${formatCount(confusion.trueNegative)}</td></tr>
</tbody>
</table></div>
</section>
<section aria-labelledby="thresholds-heading">
<h2 id="thresholds-heading">Best thresholds</h2>
<p class="section-note">${describeThresholdRule(metric)}; the metric ran at ${formatScore(metric.threshold)}.</p>
<div class="table-scroll"><table class="figures">
<thead><tr><th scope="col">Maximises</th><th scope="col">Threshold</th><th scope="col"><span class="symbol">κ</span></th><th scope="col">F1</th><th scope="col">Accuracy</th><th scope="col">Precision / recall</th></tr></thead>
<tbody>
${thresholdRow("κ", report.bestKappa, metric.threshold)}
${thresholdRow("F1", report.bestF1, metric.threshold)}
</tbody>
</table></div>
</section>
<section class="cases" aria-labelledby="wrong-heading">
<h2 id="wrong-heading">Rows the metric got wrong (${formatCount(report.disagreementCount)})</h2>
${shown < report.disagreementCount ? html`<p class="section-note">The ${formatCount(shown)} most confident (score farthest from the threshold).</p>` : null}
${report.disagreementCount === 0 ? html`<p class="empty">None: the metric agreed with people on every scored row.</p>` : report.disagreements.map(renderExample)}
</section>
${
  report.unscored.length === 0
    ? null
    : html`<section aria-labelledby="unscored-heading">
<h2 id="unscored-heading">Rows not scored (${formatCount(report.rows.unscored)})</h2>
<ul>${report.unscored.map((row) => html`<li><strong>${placeOf(row)}</strong>: <span class="error-message">${renderReportText({ text: row.error })}</span></li>`)}</ul>
</section>`
}
<footer>${formatPlural(report.rows.total, "row")} · generated by verdict</footer>
</main>`;
  return renderReportPage({ title, body, extraStyles: CALIBRATION_STYLES });
}
