import { randomUUID } from "node:crypto";
import type { EvaluationResult } from "../../results/evaluation-result.ts";
import { emptySpending } from "../../results/spending.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import type { OutputTarget } from "../output-targets.ts";
import { createOutputReporter } from "./create-output-reporter.ts";

/**
 * A run with nothing in it: one stopped before any test ran. Prints `message` and writes
 * the --output reports, which say which shard it was. (A shard dealt no test runs as usual
 * and says so at its end.)
 */
export function writeEmptyRun(options: {
  message: string;
  status: "interrupted";
  identifier: string | undefined;
  targets: readonly OutputTarget[];
  shard: string | undefined;
}): void {
  const { shard, targets, message } = options;
  const result: EvaluationResult = {
    testRunId: randomUUID(),
    identifier: options.identifier ?? null,
    testResults: [],
    summary: summarizeRun({
      status: options.status,
      testResults: [],
      total: 0,
      spending: emptySpending(),
      durationMs: 0,
    }),
  };
  process.stdout.write(`${message}\n`);
  for (const target of targets) {
    createOutputReporter({ output: target.format, file: target.file, shard }).onEvent({
      type: "run-end",
      runId: result.testRunId,
      result,
      message,
    });
    process.stdout.write(`Report written to ${target.file}\n`);
  }
}
