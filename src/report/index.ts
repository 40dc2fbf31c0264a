export {
  type ConsoleReportDisplay,
  type ConsoleReporterOptions,
  createConsoleReporter,
  type RenderConsoleReportOptions,
  renderConsoleReport,
} from "./console-report.ts";
export {
  createProgressReporter,
  type ProgressReporter,
  type ProgressReporterOptions,
} from "./progress-reporter.ts";
