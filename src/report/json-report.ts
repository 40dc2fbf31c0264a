import type { z } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE, usesFakeJudge } from "../results/fake-judge-notice.ts";
import { evaluationResultSchema } from "../results/result-schema.ts";
import type { RunReporter } from "../results/runner-events.ts";
import { formatPlural } from "./format.ts";
import { writeReportFile } from "./write-report-file.ts";

/** The `format` field that marks a file as a verdict JSON report. */
export const JSON_REPORT_FORMAT = "verdict-evaluation-result";
/** The version of the JSON report layout that this verdict writes and reads. */
export const JSON_REPORT_VERSION = 1;

/** Options of {@link renderJsonReport}. */
export interface RenderJsonReportOptions {
  result: EvaluationResult;
}

/** Options of {@link parseJsonReport}. */
export interface ParseJsonReportOptions {
  /** The file's contents. */
  text: string;
  /** Where the text came from (a path), named in errors. */
  source: string;
}

/** Options of {@link createJsonReporter}. */
export interface JsonReporterOptions {
  /** Path of the JSON file; missing folders are created. */
  file: string;
}

const MAX_ISSUES_SHOWN = 5;

/**
 * Renders an evaluation result as pretty JSON: `"format": "verdict-evaluation-result"` and
 * `"version": 1` first (so that `verdict merge` and other tools recognise the file), then — when
 * scores came from the fake judge — a `"notice"` that they are not real, then every field of
 * the {@link EvaluationResult} unchanged.
 * @example
 * writeFileSync("results.json", renderJsonReport({ result: await evaluate({ testCases, metrics }) }));
 */
export function renderJsonReport(options: RenderJsonReportOptions): string {
  const document = {
    format: JSON_REPORT_FORMAT,
    version: JSON_REPORT_VERSION,
    ...(usesFakeJudge(options.result.testResults) ? { notice: FAKE_JUDGE_NOTICE } : {}),
    ...options.result,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Reads a file written by {@link renderJsonReport} back into an {@link EvaluationResult},
 * checking its shape.
 * @throws {ConfigError} naming `source` and the problem when the text is not valid JSON, not a
 * verdict JSON report, from a newer verdict, or has a field of the wrong type.
 * @example
 * const result = parseJsonReport({ text: readFileSync(path, "utf8"), source: path });
 */
export function parseJsonReport(options: ParseJsonReportOptions): EvaluationResult {
  const { source } = options;
  const fail = (problem: string, cause?: unknown): never => {
    throw new ConfigError(
      `"${source}" is not a verdict JSON report: ${problem}`,
      cause === undefined ? {} : { cause },
    );
  };

  let document: unknown;
  try {
    document = JSON.parse(options.text);
  } catch (error) {
    return fail(`it is not valid JSON (${(error as Error).message}).`, error);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    return fail("expected a JSON object at the top level.");
  }
  const { format, version } = document as { format?: unknown; version?: unknown };
  if (format !== JSON_REPORT_FORMAT) {
    return fail(
      `it has no "format": "${JSON_REPORT_FORMAT}" field. Write one with --output json or createJsonReporter().`,
    );
  }
  if (version !== JSON_REPORT_VERSION) {
    if (typeof version === "number" && version > JSON_REPORT_VERSION) {
      return fail(
        `it is version ${version}, written by a newer verdict; this one reads version ${JSON_REPORT_VERSION}. Upgrade verdict.`,
      );
    }
    return fail(
      `"version" is ${JSON.stringify(version) ?? "missing"}; expected ${JSON_REPORT_VERSION}.`,
    );
  }
  const parsed = evaluationResultSchema.safeParse(document);
  if (!parsed.success) {
    return fail(`${describeIssues(parsed.error)}.`, parsed.error);
  }
  return parsed.data;
}

/**
 * A reporter that writes {@link renderJsonReport} to `file` when the run ends, creating the
 * folder if needed. It writes whatever the run's status, so an interrupted run still leaves
 * its finished cases behind.
 * @example
 * await evaluate({ testCases, metrics, reporters: [createJsonReporter({ file: "reports/results.json" })] });
 */
export function createJsonReporter(options: JsonReporterOptions): RunReporter {
  return {
    onEvent(event) {
      if (event.type !== "run-end") return;
      writeReportFile({
        file: options.file,
        text: renderJsonReport({ result: event.result }),
        kind: "JSON",
      });
    },
  };
}

function describeIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => {
    const path = issue.path.length > 0 ? formatPath(issue.path) : "(top level)";
    return `${path}: ${issue.message}`;
  });
  const more = error.issues.length - MAX_ISSUES_SHOWN;
  if (more > 0) issues.push(`and ${formatPlural(more, "more problem")}`);
  return issues.join("; ");
}

/** `testResults[2].metricsData[0].score`, the way the field is written in code. */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((key, position) => {
      if (typeof key === "number") return `[${key}]`;
      const name = String(key);
      return position === 0 ? name : `.${name}`;
    })
    .join("");
}
