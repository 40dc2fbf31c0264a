import { createConsoleReporter } from "../report/console-report.ts";
import { createProgressReporter } from "../report/progress-reporter.ts";
import type { RunReporter } from "../results/runner-events.ts";

/** Which test cases the end report shows; `"none"` prints no report. */
export type DisplayOption = "all" | "failing" | "passing" | "none";

/**
 * The reporters a run uses unless told otherwise: progress (on stderr), then the end report
 * (on stdout). evaluate() and the Vitest reporter both take theirs from here.
 */
export function defaultReporters(options: {
  display: DisplayOption;
  /** @default display !== "none" */
  showProgress: boolean | undefined;
  /** @default process.stdout */
  stdout?: NodeJS.WritableStream;
  /** @default process.stderr */
  stderr?: NodeJS.WritableStream;
}): RunReporter[] {
  const reporters: RunReporter[] = [];
  if (options.showProgress ?? options.display !== "none") {
    reporters.push(createProgressReporter(options.stderr ? { stream: options.stderr } : {}));
  }
  if (options.display !== "none") {
    reporters.push(
      createConsoleReporter({
        display: options.display,
        ...(options.stdout ? { stream: options.stdout } : {}),
      }),
    );
  }
  return reporters;
}
