import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { EvalError } from "../../errors/eval-error.ts";
import { createConsoleReporter } from "../../report/console-report.ts";
import { formatPlural } from "../../report/format.ts";
import { appendStepSummary } from "../../report/github-actions-report.ts";
import { readJsonReport } from "../../report/json-report.ts";
import { renderMarkdownReport } from "../../report/markdown-report.ts";
import type { EvaluationResult, TestResult } from "../../results/evaluation-result.ts";
import { addSpending, emptySpending } from "../../results/spending.ts";
import { summarizeRun, worstRunStatus } from "../../results/summarize-run.ts";
import { decideTestRunOutcome } from "../../results/test-run-outcome.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { EXIT_CODES, exitCodeForOutcome } from "../exit-codes.ts";
import { type GitHubActionsTarget, githubActionsOf } from "../github-actions.ts";
import { type OutputRequest, resolveOutputTargets } from "../output-targets.ts";
import { createOutputReporter } from "./create-output-reporter.ts";
import { readStoredRunForMerge } from "./merge-stored-run.ts";

/** Options of {@link runMerge}: the arguments of `verdict merge`. */
export interface MergeCommandOptions {
  /** JSON reports written by `verdict test run --output json` (one per CI shard). */
  files: string[];
  /**
   * Instead of files: a stored run (id or identifier) that CI shards wrote into one store
   * (`VERDICT_STORE`, or the SQLite store of `VERDICT_HOME`), read whole.
   */
  run?: string | undefined;
  /** Where `VERDICT_STORE` and `VERDICT_HOME` are read for `run`. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** The `--output` flags: each report's format, and its file when given as `FORMAT=PATH`. */
  outputs?: readonly OutputRequest[];
  /**
   * The file of a single `--output`.
   * @default `verdict-report.<json|xml|html|md>` in `cwd`
   */
  outputFile?: string;
  /** `"none"` prints no end report. */
  display: "all" | "failing" | "passing" | "none";
  /**
   * Under GitHub Actions (`GITHUB_ACTIONS=true`): append the merged run's Markdown report to
   * the job summary; `false` with `--no-github`. (The shards annotated their failing tests.)
   * @default true
   */
  github?: boolean;
  /**
   * Merge even when the reports are shards of a run and some shard has no report (a warning
   * names them). Without it, a missing shard is an error (exit 2).
   * @default false
   */
  allowMissingShards?: boolean;
  cwd: string;
}

/** Options of {@link findMissingShards}. */
export interface FindMissingShardsOptions {
  /** The `"i/n"` of each report; `null` for an unsharded report (not checked). */
  shards: ReadonlyArray<string | null>;
}

/** Options of {@link mergeEvaluationResults}. */
export interface MergeEvaluationResultsOptions {
  /** The results to merge, in the order given. */
  results: readonly EvaluationResult[];
}

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
  const status = worstRunStatus(results.map((result) => result.summary.status));
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
 * What is wrong with a set of shard reports: shards of the run with no report, a shard given
 * twice, or shards of differently split runs. Empty when nothing is; unsharded reports are
 * not checked.
 * @example
 * findMissingShards({ shards: ["1/4", "2/4", "4/4"] }); // ["shard 3/4 has no report"]
 */
export function findMissingShards(options: FindMissingShardsOptions): string[] {
  const sharded = options.shards.filter((shard) => shard !== null);
  if (sharded.length === 0) return [];
  const counts = new Set(sharded.map((shard) => shard.split("/")[1]));
  if (counts.size > 1) {
    return [
      `the reports come from runs split differently (${[...new Set(sharded)].join(", ")}): merge the shards of one run`,
    ];
  }
  const count = Number(sharded[0]?.split("/")[1]);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const shard of sharded) {
    if (seen.has(shard)) problems.push(`shard ${shard} is given twice`);
    seen.add(shard);
  }
  const missing: string[] = [];
  for (let index = 1; index <= count; index++) {
    if (!seen.has(`${index}/${count}`)) missing.push(`${index}/${count}`);
  }
  if (missing.length > 0) {
    const names =
      missing.length === 1 ? `shard ${missing[0]} has` : `shards ${missing.join(", ")} have`;
    problems.unshift(`${names} no report`);
  }
  return problems;
}

/**
 * `verdict merge <files…>`: combines the `--output json` reports of CI shards into one result
 * (see {@link mergeEvaluationResults}), prints the end report, writes `--output` if asked, and
 * returns the exit code that one unsharded `verdict test run` would have: 0 passed, 1 failed,
 * 3 unscored; 2 when a file cannot be read or is not a verdict JSON report (the message names
 * it), or when the reports are shards (`"shard": "i/n"`) and a shard is missing, unless
 * `allowMissingShards`.
 * @example
 * const code = await runMerge({ files: ["shard-1.json", "shard-2.json"], display: "failing", cwd: process.cwd() });
 */
export async function runMerge(options: MergeCommandOptions): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`${redactSecretText(message)}\n`);
    return EXIT_CODES.usage;
  };
  if (options.run !== undefined && options.files.length > 0) {
    return fail("verdict merge takes JSON reports or --run, not both.");
  }
  if (options.files.length === 0 && options.run === undefined) {
    return fail(
      "verdict merge needs at least one JSON report, or --run NAME for a run the shards stored together.",
    );
  }
  const targets = resolveOutputTargets({
    outputs: options.outputs ?? [],
    outputFile: options.outputFile,
    cwd: options.cwd,
  });
  if (typeof targets === "string") return fail(targets);
  const github = githubActionsOf({
    env: options.env ?? process.env,
    enabled: options.github !== false,
  });
  if (options.run !== undefined) {
    const stored = await readStoredRunForMerge({
      run: options.run,
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    if ("error" in stored) return fail(stored.error);
    if (stored.problems.length > 0 && options.allowMissingShards !== true) {
      return fail(
        `Cannot merge run "${options.run}": ${stored.problems.join("; ")}. Run the missing shards (or wait for them), or pass --allow-missing-shards to merge what there is.`,
      );
    }
    return report({ ...stored, targets, display: options.display, github, fail });
  }
  const results: EvaluationResult[] = [];
  const shards: Array<string | null> = [];
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
      const report = readJsonReport({ text, source: file });
      results.push(report.result);
      shards.push(report.shard);
    } catch (error) {
      if (error instanceof EvalError) return fail(error.message);
      throw error;
    }
  }

  const problems = findMissingShards({ shards });
  if (problems.length > 0 && options.allowMissingShards !== true) {
    return fail(
      `Cannot merge: ${problems.join("; ")}. Pass the JSON report of every shard, or --allow-missing-shards to merge what there is.`,
    );
  }
  return report({
    result: mergeEvaluationResults({ results }),
    problems,
    message: `Merged ${formatPlural(results.length, "report")}: ${options.files.join(", ")}.`,
    targets,
    display: options.display,
    github,
    fail,
  });
}

/** Prints the merged run, writes the reports asked for, and returns the exit code. */
function report(options: {
  result: EvaluationResult;
  problems: readonly string[];
  message: string;
  targets: ReadonlyArray<{ format: OutputRequest["format"]; file: string }>;
  display: MergeCommandOptions["display"];
  github: GitHubActionsTarget | null;
  fail: (message: string) => number;
}): number {
  const { result, problems, targets, fail } = options;
  const lines = [options.message];
  if (problems.length > 0) lines.push(`Incomplete: ${problems.join("; ")}.`);
  const message = lines.join("\n");
  const event = { type: "run-end", runId: result.testRunId, result, message } as const;
  if (options.display !== "none")
    createConsoleReporter({ display: options.display }).onEvent(event);
  for (const target of targets) {
    try {
      createOutputReporter({ output: target.format, file: target.file }).onEvent(event);
    } catch (error) {
      if (error instanceof EvalError) return fail(error.message);
      throw error;
    }
    process.stdout.write(`Report written to ${target.file}\n`);
  }
  if (options.github?.summaryFile != null) {
    appendStepSummary({
      file: options.github.summaryFile,
      markdown: renderMarkdownReport({ result, message }),
      stderr: process.stderr,
    });
  }
  return exitCodeForOutcome({ outcome: decideTestRunOutcome({ result }) });
}
