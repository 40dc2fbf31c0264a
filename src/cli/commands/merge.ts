import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { EvalError } from "../../errors/eval-error.ts";
import { createConsoleReporter } from "../../report/console-report.ts";
import { formatPlural } from "../../report/format.ts";
import { parseJsonReport } from "../../report/json-report.ts";
import type { EvaluationResult, RunStatus, TestResult } from "../../results/evaluation-result.ts";
import { addSpending, emptySpending } from "../../results/spending.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import { decideTestRunOutcome } from "../../results/test-run-outcome.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { EXIT_CODES, exitCodeForOutcome } from "../exit-codes.ts";
import { createOutputReporter, OUTPUT_EXTENSIONS } from "./test-run.ts";

/** Options of {@link runMerge}: the arguments of `verdict merge`. */
export interface MergeCommandOptions {
  /** JSON reports written by `verdict test run --output json` (one per CI shard). */
  files: string[];
  output?: "json" | "junit" | "html";
  /** @default `verdict-report.<json|xml|html>` in `cwd` */
  outputFile?: string;
  display: "all" | "failing" | "passing";
  cwd: string;
}

/** Options of {@link mergeEvaluationResults}. */
export interface MergeEvaluationResultsOptions {
  /** The results to merge, in the order given. */
  results: readonly EvaluationResult[];
}

// Most serious first: the merged run ended as badly as its worst part.
const STATUS_SEVERITY: readonly RunStatus[] = [
  "failed",
  "quota-exhausted",
  "interrupted",
  "running",
  "completed",
];

/**
 * Combines the results of CI shards into one: test results in index order (a test run's
 * indices encode file and test order, the same in every shard), re-indexed from 0 only when
 * two parts use the same index (e.g. results of separate evaluate() calls); the summary is
 * recomputed from the merged cases, judge spending summed, the duration is the longest part's
 * (shards run side by side), and the status is the worst part's.
 * @example
 * const merged = mergeEvaluationResults({ results: [shardOne, shardTwo] });
 */
export function mergeEvaluationResults(options: MergeEvaluationResultsOptions): EvaluationResult {
  const { results } = options;
  const ordered = results
    .flatMap((result, part) => result.testResults.map((testResult) => ({ testResult, part })))
    .sort((a, b) => a.testResult.index - b.testResult.index || a.part - b.part);
  const indices = new Set(ordered.map(({ testResult }) => testResult.index));
  const clash = indices.size !== ordered.length;
  const testResults: TestResult[] = ordered.map(({ testResult }, position) =>
    clash ? { ...testResult, index: position } : testResult,
  );
  const statuses = results.map((result) => result.summary.status);
  const status = STATUS_SEVERITY.find((candidate) => statuses.includes(candidate)) ?? "completed";
  const spending = results.reduce(
    (total, result) => addSpending(total, result.summary),
    emptySpending(),
  );
  const identifiers = new Set(results.map((result) => result.identifier));
  const [identifier] = identifiers;
  return {
    testRunId: randomUUID(),
    identifier: identifiers.size === 1 ? (identifier ?? null) : null,
    testResults,
    summary: summarizeRun({
      status,
      testResults,
      total: results.reduce((sum, result) => sum + result.summary.testCases.total, 0),
      spending,
      durationMs: Math.max(0, ...results.map((result) => result.summary.durationMs)),
    }),
  };
}

/**
 * `verdict merge <files…>`: combines the `--output json` reports of CI shards into one result
 * (see {@link mergeEvaluationResults}), prints the end report, writes `--output` if asked, and
 * returns the exit code that one unsharded `verdict test run` would have: 0 passed, 1 failed,
 * 3 unscored; 2 when a file cannot be read or is not a verdict JSON report (the message names
 * it).
 * @example
 * const code = await runMerge({ files: ["shard-1.json", "shard-2.json"], display: "failing", cwd: process.cwd() });
 */
export async function runMerge(options: MergeCommandOptions): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`${redactSecretText(message)}\n`);
    return EXIT_CODES.usage;
  };
  if (options.files.length === 0) return fail("verdict merge needs at least one JSON report.");
  const results: EvaluationResult[] = [];
  for (const file of options.files) {
    const absolute = path.resolve(options.cwd, file);
    let text: string;
    try {
      text = readFileSync(absolute, "utf8");
    } catch (error) {
      const reason = (error as { code?: unknown }).code ?? (error as Error).message;
      return fail(`Could not read "${file}" (${String(reason)}): check the path.`);
    }
    try {
      results.push(parseJsonReport({ text, source: file }));
    } catch (error) {
      if (error instanceof EvalError) return fail(error.message);
      throw error;
    }
  }

  const result = mergeEvaluationResults({ results });
  const message = `Merged ${formatPlural(results.length, "report")}: ${options.files.join(", ")}.`;
  const event = { type: "run-end", runId: result.testRunId, result, message } as const;
  createConsoleReporter({ display: options.display }).onEvent(event);
  if (options.output !== undefined) {
    const file = path.resolve(
      options.cwd,
      options.outputFile ?? `verdict-report.${OUTPUT_EXTENSIONS[options.output]}`,
    );
    try {
      createOutputReporter({ output: options.output, file }).onEvent(event);
    } catch (error) {
      if (error instanceof EvalError) return fail(error.message);
      throw error;
    }
    process.stdout.write(`Report written to ${file}\n`);
  }
  return exitCodeForOutcome({ outcome: decideTestRunOutcome({ result }) });
}
