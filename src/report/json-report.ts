import type { z } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE, usesFakeJudge } from "../results/fake-judge-notice.ts";
import { evaluationResultSchema } from "../results/result-schema.ts";
import type { RunReporter } from "../results/runner-events.ts";
import { formatPlural } from "./format.ts";
import { gatherRunResults } from "./run-results.ts";
import { writeReportFile } from "./write-report-file.ts";

/** The `format` field that marks a file as a verdict JSON report. */
export const JSON_REPORT_FORMAT = "verdict-evaluation-result";
/** The version of the JSON report layout that this verdict writes and reads. */
export const JSON_REPORT_VERSION = 1;

/** Options of {@link renderJsonReport}. */
export interface RenderJsonReportOptions {
  result: EvaluationResult;
  /** The CI shard the run covered, `"i/n"`, written as `"shard"` for `verdict merge`. */
  shard?: string | undefined;
}

/** What {@link readJsonReport} finds in a JSON report. */
export interface JsonReport {
  result: EvaluationResult;
  /** The CI shard the report covers, `"i/n"`; `null` for an unsharded run. */
  shard: string | null;
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
  /** The CI shard the run covers, `"i/n"` (see {@link RenderJsonReportOptions.shard}). */
  shard?: string | undefined;
}

const MAX_ISSUES_SHOWN = 5;

const SHARD_PATTERN = /^[1-9]\d*\/[1-9]\d*$/;

/**
 * Renders an evaluation result as pretty JSON: `"format": "verdict-evaluation-result"` and
 * `"version": 1` first (so that `verdict merge` and other tools recognise the file), then
 * `"shard": "i/n"` for a CI shard, then — when scores came from the fake judge — a
 * `"notice"` that they are not real, then every field of the {@link EvaluationResult}. Each test
 * result also gets `"position"`: its place in the report counted from 1, the number a person
 * uses ("case 3"). `index` stays: it is verdict's internal ordering key (under
 * `verdict test run` it encodes file and test order, with gaps), not a position.
 * @example
 * writeFileSync("results.json", renderJsonReport({ result: await evaluate({ testCases, metrics }) }));
 */
export function renderJsonReport(options: RenderJsonReportOptions): string {
  const { result } = options;
  const document = {
    format: JSON_REPORT_FORMAT,
    version: JSON_REPORT_VERSION,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(usesFakeJudge(result.testResults) ? { notice: FAKE_JUDGE_NOTICE } : {}),
    ...result,
    testResults: result.testResults.map(({ name, ...rest }, position) => ({
      name,
      position: position + 1,
      ...rest,
    })),
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
  return readJsonReport(options).result;
}

/**
 * Like {@link parseJsonReport}, and also returns the shard the report covers (`"i/n"`, or
 * `null`), which `verdict merge` checks for missing shards.
 * @throws {ConfigError} as {@link parseJsonReport} does, or when `"shard"` is not `"i/n"`.
 * @example
 * const { result, shard } = readJsonReport({ text: readFileSync(path, "utf8"), source: path });
 */
export function readJsonReport(options: ParseJsonReportOptions): JsonReport {
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
  const { shard } = document as { shard?: unknown };
  if (shard !== undefined && (typeof shard !== "string" || !SHARD_PATTERN.test(shard))) {
    return fail(`"shard" is ${JSON.stringify(shard)}; expected "i/n", e.g. "2/4".`);
  }
  const parsed = evaluationResultSchema.safeParse(document);
  if (!parsed.success) {
    return fail(`${describeIssues(parsed.error)}.`, parsed.error);
  }
  return { result: parsed.data, shard: shard ?? null };
}

/**
 * A reporter that writes {@link renderJsonReport} to `file` when the run ends, creating the
 * folder if needed. It writes whatever the run's status, so an interrupted run still leaves
 * its finished cases behind.
 * @example
 * await evaluate({ testCases, metrics, reporters: [createJsonReporter({ file: "reports/results.json" })] });
 */
export function createJsonReporter(options: JsonReporterOptions): RunReporter {
  const results = gatherRunResults();
  return {
    onEvent(event) {
      results.observe(event);
      if (event.type !== "run-end") return;
      writeReportFile({
        file: options.file,
        text: renderJsonReport({ result: results.of(event), shard: options.shard }),
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
