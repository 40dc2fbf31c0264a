export {
  type ConsoleReportDisplay,
  type ConsoleReporterOptions,
  createConsoleReporter,
  type RenderConsoleReportOptions,
  renderConsoleReport,
} from "./console-report.ts";
export {
  createHtmlReporter,
  HTML_REPORT_CONTENT_SECURITY_POLICY,
  type HtmlReporterOptions,
  type RenderHtmlReportOptions,
  renderHtmlReport,
} from "./html-report.ts";
export {
  createJsonReporter,
  JSON_REPORT_FORMAT,
  JSON_REPORT_VERSION,
  type JsonReporterOptions,
  type ParseJsonReportOptions,
  parseJsonReport,
  type RenderJsonReportOptions,
  renderJsonReport,
} from "./json-report.ts";
export {
  createJUnitReporter,
  type JUnitReporterOptions,
  type RenderJUnitReportOptions,
  renderJUnitReport,
} from "./junit-report.ts";
export {
  createProgressReporter,
  type ProgressReporter,
  type ProgressReporterOptions,
} from "./progress-reporter.ts";
