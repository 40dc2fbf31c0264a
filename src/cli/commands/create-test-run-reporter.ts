import { createGitHubActionsReporter } from "../../report/github-actions-report.ts";
import type { RunShard } from "../../store/run-store.ts";
import { VerdictReporter } from "../../vitest/verdict-reporter.ts";
import { githubActionsOf } from "../github-actions.ts";
import type { OutputTarget } from "../output-targets.ts";
import { createOutputReporter } from "./create-output-reporter.ts";
import type { TestRunBudget } from "./test-run-budget.ts";
import type { TestRunCommandOptions } from "./test-run-command-options.ts";

/**
 * The Vitest reporter of `verdict test run`: a {@link VerdictReporter} that stores the run and
 * prints the end report, with the `--output` reports and, under GitHub Actions, the job
 * summary and annotations.
 */
export function createTestRunReporter(context: {
  options: TestRunCommandOptions;
  /** The workers' environment. */
  env: NodeJS.ProcessEnv;
  budget: TestRunBudget | null;
  targets: OutputTarget[];
  shard: string | undefined;
  caseShard: RunShard | null;
  identifier: string | undefined;
}): VerdictReporter {
  const { options, env, budget, targets, shard, caseShard, identifier } = context;
  const { cwd } = options;
  const outputReporters = targets.map((target) =>
    createOutputReporter({ output: target.format, file: target.file, shard }),
  );
  // A dry run writes no report: no job summary, no annotations either.
  const github = options.dryRun
    ? null
    : githubActionsOf({ env: options.env, enabled: options.github !== false });
  if (github !== null) {
    outputReporters.push(
      createGitHubActionsReporter({
        summaryFile: github.summaryFile,
        annotate: true,
        cwd,
        workspace: github.workspace,
      }),
    );
  }
  return new VerdictReporter({
    env,
    display: options.display,
    printVitestOutput: true,
    ...(identifier === undefined ? {} : { identifier }),
    ...(options.resume ? { resume: true } : {}),
    ...(outputReporters.length === 0 ? {} : { reporters: outputReporters }),
    ...(caseShard === null ? {} : { shard: caseShard }),
    ...(budget === null ? {} : { budget: budget.summary }),
    config: {
      command: "verdict test run",
      paths: options.paths,
      exitOnFirstFailure: options.exitOnFirstFailure,
      shard: options.shard ?? null,
      ...(options.watch ? { watch: true } : {}),
      ...(budget === null
        ? {}
        : {
            budget: {
              maxCostUsd: options.maxCostUsd ?? null,
              maxTokens: options.maxTokens ?? null,
            },
          }),
    },
  });
}
