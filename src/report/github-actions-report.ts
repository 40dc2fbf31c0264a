import { appendFileSync } from "node:fs";
import path from "node:path";
import { metricStatus } from "../results/case-metrics.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { RunReporter } from "../results/runner-events.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import {
  formatPlural,
  formatScore,
  formatScoreAgainstThreshold,
  showControlCharacters,
  toOneLine,
} from "./format.ts";
import { renderMarkdownReport } from "./markdown-report.ts";
import { gatherRunResults } from "./run-results.ts";
import { truncateText } from "./truncate-text.ts";

/** Options of {@link createGitHubActionsReporter}. */
export interface GitHubActionsReporterOptions {
  /** `$GITHUB_STEP_SUMMARY`: the Markdown report is appended to it; `null`: no summary. */
  summaryFile: string | null;
  /** Print an `::error` annotation for each failing case. */
  annotate: boolean;
  /** The folder the cases' `file` paths are relative to (the project). */
  cwd: string;
  /**
   * `$GITHUB_WORKSPACE`, the checkout: annotation paths are relative to it, as GitHub reads
   * them. @default cwd
   */
  workspace?: string | undefined;
  /** @default process.stdout */
  stdout?: { write(text: string): unknown };
  /** @default process.stderr */
  stderr?: { write(text: string): unknown };
}

/** Options of {@link renderAnnotations}. */
export interface RenderAnnotationsOptions {
  result: EvaluationResult;
  cwd: string;
  workspace?: string | undefined;
  /** @default 10, as many error annotations as GitHub shows for one step */
  maxAnnotations?: number;
}

/** GitHub shows 10 error annotations per step (50 per job): more are dropped unseen. */
const MAX_ANNOTATIONS = 10;
const MAX_MESSAGE_LENGTH = 1500;
const MAX_OUTPUT_LENGTH = 300;

/**
 * A workflow command's message as the runner reads it: `%`, CR and LF percent-encoded (the
 * rule of GitHub's actions toolkit, `escapeData`), so that text cannot end the command or
 * start another on a new line.
 */
export function escapeAnnotationData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value (`file=`, `title=`): as the message, and `:` and `,`. */
export function escapeAnnotationProperty(text: string): string {
  return escapeAnnotationData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * One `::error file=…,line=…,title=…::message` line per failing case (at most
 * `maxAnnotations`), at its test file and line: each failing metric's score against its
 * threshold and reason (or its error), and the start of the output. Secrets are masked and
 * control characters shown; the text is escaped for the runner. Returns the lines, and how
 * many failing cases were left out.
 * @example
 * const { lines } = renderAnnotations({ result, cwd: process.cwd() });
 */
export function renderAnnotations(options: RenderAnnotationsOptions): {
  lines: string[];
  omitted: number;
} {
  const failing = options.result.testResults.filter((testResult) => testResult.success === false);
  const max = options.maxAnnotations ?? MAX_ANNOTATIONS;
  const lines = failing.slice(0, max).map((testResult) => {
    const properties: string[] = [];
    if (testResult.file !== undefined) {
      const absolute = path.resolve(options.cwd, testResult.file);
      const relative = path.relative(options.workspace ?? options.cwd, absolute);
      properties.push(`file=${escapeAnnotationProperty(relative.split(path.sep).join("/"))}`);
      if (testResult.line !== undefined) properties.push(`line=${testResult.line}`);
    }
    properties.push(`title=${escapeAnnotationProperty(clean(`verdict: ${testResult.name}`, 200))}`);
    return `::error ${properties.join(",")}::${escapeAnnotationData(describeFailure(testResult))}`;
  });
  return { lines, omitted: failing.length - lines.length };
}

/**
 * A reporter for GitHub Actions: when the run ends, appends the Markdown report to the job's
 * summary (`$GITHUB_STEP_SUMMARY`) and prints an `::error` annotation for each failing case
 * at its test file and line (see {@link renderAnnotations}). A summary that cannot be written
 * is a warning: the run's own outcome stands.
 * @example
 * createGitHubActionsReporter({ summaryFile: process.env.GITHUB_STEP_SUMMARY ?? null, annotate: true, cwd: process.cwd() });
 */
export function createGitHubActionsReporter(options: GitHubActionsReporterOptions): RunReporter {
  const results = gatherRunResults();
  return {
    onEvent(event) {
      results.observe(event);
      if (event.type !== "run-end") return;
      const { result } = results.of(event);
      if (options.summaryFile !== null) {
        appendStepSummary({
          file: options.summaryFile,
          markdown: renderMarkdownReport({ result, message: event.message }),
          stderr: options.stderr ?? process.stderr,
        });
      }
      if (options.annotate) {
        const stdout = options.stdout ?? process.stdout;
        const { lines, omitted } = renderAnnotations({ result, ...options });
        for (const line of lines) stdout.write(`${line}\n`);
        if (omitted > 0) {
          stdout.write(
            `verdict: ${formatPlural(omitted, "more failing test case")} not annotated (GitHub shows ${MAX_ANNOTATIONS} per step): see the job summary.\n`,
          );
        }
      }
    },
  };
}

/**
 * Appends Markdown to a GitHub job summary (`$GITHUB_STEP_SUMMARY`), secrets masked, with a
 * blank line before it so that it starts a block of its own. A failure is a warning on
 * `stderr`: a summary is a courtesy, not the run's result.
 */
export function appendStepSummary(options: {
  file: string;
  markdown: string;
  stderr: { write(text: string): unknown };
}): void {
  try {
    appendFileSync(options.file, `\n${redactSecretText(options.markdown)}\n`, "utf8");
  } catch (error) {
    options.stderr.write(
      `Warning: could not append the summary to ${options.file} ($GITHUB_STEP_SUMMARY): ${(error as Error).message}. Pass --no-github to leave it out.\n`,
    );
  }
}

function describeFailure(testResult: TestResult): string {
  const lines: string[] = [];
  const runs =
    testResult.trials.length > 1
      ? testResult.trials.filter((trial) => trial.success !== true)
      : [{ trial: -1, metricsData: testResult.metricsData }];
  for (const run of runs) {
    const trial = run.trial < 0 ? "" : ` (trial ${run.trial + 1}/${testResult.trials.length})`;
    for (const metric of run.metricsData) {
      const status = metricStatus(metric);
      if (status === "errored") {
        lines.push(`${metric.name}${trial} errored: ${metric.error ?? ""}`);
      } else if (status === "failed") {
        const score =
          metric.score === null || metric.threshold === null
            ? `score ${formatScore(metric.score)}`
            : formatScoreAgainstThreshold(metric.score, metric.threshold);
        lines.push(`${metric.name}${trial}: ${score}. ${metric.reason ?? ""}`.trim());
      }
    }
  }
  if (testResult.actualOutput !== null) {
    lines.push(`Output: ${clean(testResult.actualOutput, MAX_OUTPUT_LENGTH)}`);
  }
  return truncateText(showControlCharacters(lines.join("\n")), MAX_MESSAGE_LENGTH);
}

/** On one line, control characters shown, secrets masked, at most `maxLength` characters. */
function clean(text: string, maxLength: number): string {
  return truncateText(showControlCharacters(toOneLine(text)), maxLength);
}
