import { createConsoleReporter } from "../report/console-report.ts";
import { createProgressReporter } from "../report/progress-reporter.ts";
import type { RunReporter } from "../results/runner-events.ts";

/** Which test cases the end report shows; `"none"` prints no report. */
export type DisplayOption = "all" | "failing" | "passing" | "none";

/** The reporters evaluate() uses unless told otherwise: progress, then the end report. */
export function defaultReporters(options: {
  display: DisplayOption;
  showProgress: boolean | undefined;
}): RunReporter[] {
  const reporters: RunReporter[] = [];
  if (options.showProgress ?? options.display !== "none") reporters.push(createProgressReporter());
  if (options.display !== "none") {
    reporters.push(createConsoleReporter({ display: options.display }));
  }
  return reporters;
}
