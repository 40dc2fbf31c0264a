import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EvalError } from "../../errors/eval-error.ts";
import { readJsonReport } from "../../report/json-report.ts";
import type { RunWithResults } from "../../report/run-with-results.ts";

/** Whether a `verdict compare` argument names a JSON report (a path ending in `.json`) rather than a stored run. */
export function isReportPath(argument: string): boolean {
  return /\.json$/i.test(argument.trim());
}

/**
 * A run read from a JSON report written by `--output json` (or `verdict merge`), as compare
 * reads a stored run: its results, and a run record made from the report (started when the
 * file was written; the report has no start time). Or the message that says why it cannot be
 * read.
 */
export function readReportRun(options: {
  file: string;
  cwd: string;
}): { entry: RunWithResults; label: string } | { error: string } {
  const absolute = path.resolve(options.cwd, options.file);
  let text: string;
  let writtenAt: Date;
  try {
    text = readFileSync(absolute, "utf8");
    writtenAt = statSync(absolute).mtime;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      error:
        code === "ENOENT"
          ? `No JSON report at "${options.file}" (looked in ${options.cwd}): give a report written by --output json, or a stored run's id or identifier (which do not end in .json).`
          : `Could not read "${options.file}" (${String(code ?? (error as Error).message)}): check the path.`,
    };
  }
  try {
    const { result } = readJsonReport({ text, source: options.file });
    return {
      label: options.file,
      entry: {
        run: {
          id: result.testRunId,
          identifier: result.identifier,
          status: result.summary.status,
          startedAt: writtenAt.toISOString(),
          endedAt: writtenAt.toISOString(),
          config: {},
          summary: result.summary,
        },
        results: result.testResults,
      },
    };
  } catch (error) {
    if (error instanceof EvalError) return { error: error.message };
    throw error;
  }
}
