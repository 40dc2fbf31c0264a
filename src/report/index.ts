/**
 * `verdict/reporters`: consumers of a run's events that print or write it — the console
 * report and progress bar (evaluate()'s defaults), and the JSON, JUnit, HTML and Markdown files — plus
 * the JSON report's reader and writer. Pass them as `evaluate({ reporters: [...] })`. Also
 * the text of a dry run's estimate (`renderCostEstimate`).
 * @packageDocumentation
 */
export { type ConsoleReporterOptions, createConsoleReporter } from "./console-report.ts";
export { type RenderCostEstimateOptions, renderCostEstimate } from "./cost-estimate-report.ts";
export { createHtmlReporter, type HtmlReporterOptions } from "./html-report.ts";
export {
  createJsonReporter,
  type JsonReporterOptions,
  type ParseJsonReportOptions,
  parseJsonReport,
  type RenderJsonReportOptions,
  renderJsonReport,
} from "./json-report.ts";
export { createJUnitReporter, type JUnitReporterOptions } from "./junit-report.ts";
export {
  createMarkdownReporter,
  type MarkdownReporterOptions,
  type RenderMarkdownReportOptions,
  renderMarkdownReport,
} from "./markdown-report.ts";
export { createProgressReporter, type ProgressReporterOptions } from "./progress-reporter.ts";
