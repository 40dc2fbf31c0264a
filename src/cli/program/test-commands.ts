import { type Command, Option } from "commander";
import type { OutputRequest } from "../output-targets.ts";
import type { CommandContext } from "./command-context.ts";
import { dollars, nonEmpty, shard, wholeNumber } from "./flag-parsers.ts";
import {
  type DisplayMode,
  displayOption,
  outputFileOption,
  outputOption,
} from "./report-options.ts";

interface TestRunFlags {
  cache: boolean;
  useCache?: true;
  ignoreErrors?: true;
  skipOnMissingParams?: true;
  verbose?: true;
  maxConcurrent?: number;
  repeat?: number;
  exitOnFirstFailure?: true;
  concurrent: boolean;
  display: DisplayMode;
  identifier?: string;
  resume?: true;
  output?: OutputRequest[];
  outputFile?: string;
  shard?: string;
  judge?: string;
  dryRun?: true;
  maxCost?: number;
  maxTokens?: number;
}

/** `verdict test run [paths...]`: evaluation test files through Vitest with verdict's reporter. */
export function defineTestCommands(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  const test = program
    .command("test")
    .description("run evaluation tests: verdict test run [paths...]");
  test
    .command("run")
    .description("run *.eval.ts / *.test.ts files through Vitest with verdict's reporter")
    .argument("[paths...]", "test files or folders (default: every evaluation test file)")
    .addOption(
      new Option(
        "-c, --use-cache",
        "reuse judge answers from earlier runs (the default)",
      ).conflicts("cache"),
    )
    .option("--no-cache", "do not reuse judge answers from earlier runs")
    .option("-i, --ignore-errors", "record a failed metric as an error instead of stopping")
    .option("-s, --skip-on-missing-params", "leave out a metric whose test case lacks a field")
    .option("-v, --verbose", "print each metric's intermediate steps")
    .option(
      "-n, --max-concurrent <count>",
      "judge requests in flight per model",
      wholeNumber("--max-concurrent"),
    )
    .option("-r, --repeat <count>", "run each test case this many times", wholeNumber("--repeat"))
    .option("-x, --exit-on-first-failure", "stop at the first failing test")
    .option("--no-concurrent", "run each file's tests one at a time (default: at the same time)")
    .addOption(displayOption())
    .option("--identifier <name>", "name the run, for verdict compare", nonEmpty("--identifier"))
    .option(
      "--resume",
      "continue the latest run of --identifier (the judge cache answers what it paid for); its store must open",
    )
    .addOption(outputOption())
    .addOption(outputFileOption())
    .option(
      "--shard <i/n>",
      "run only shard i of n (CI); the shards of one build (VERDICT_RUN_GROUP, or the CI build's id) write one stored run",
      shard,
    )
    .option(
      "--judge <model>",
      'judge model for this run (sets VERDICT_MODEL); "fake": the built-in fake judge, no key, scores not real',
      nonEmpty("--judge"),
    )
    .option(
      "--dry-run",
      "ask no judge: print the judge calls, tokens and cost each metric is expected to spend (cached answers free), with their range",
    )
    .option(
      "--max-cost <dollars>",
      "stop before the judge spend could pass this many dollars (exit 4); finished cases are kept, --resume with more to finish",
      dollars,
    )
    .option(
      "--max-tokens <count>",
      "the same cap in judge tokens (prompt and completion)",
      wholeNumber("--max-tokens"),
    )
    .action(async (paths: string[], flags: TestRunFlags) => {
      const { runTestRun } = await import("../commands/test-run.ts");
      setExitCode(
        await runTestRun({
          paths,
          cache: flags.cache,
          ignoreErrors: flags.ignoreErrors === true,
          skipOnMissingParams: flags.skipOnMissingParams === true,
          verbose: flags.verbose === true,
          ...(flags.maxConcurrent === undefined ? {} : { maxConcurrent: flags.maxConcurrent }),
          ...(flags.repeat === undefined ? {} : { repeat: flags.repeat }),
          exitOnFirstFailure: flags.exitOnFirstFailure === true,
          concurrent: flags.concurrent,
          display: flags.display,
          ...(flags.identifier === undefined ? {} : { identifier: flags.identifier }),
          ...(flags.resume === true ? { resume: true } : {}),
          outputs: flags.output ?? [],
          ...(flags.outputFile === undefined ? {} : { outputFile: flags.outputFile }),
          ...(flags.shard === undefined ? {} : { shard: flags.shard }),
          ...(flags.judge === undefined ? {} : { judge: flags.judge }),
          ...(flags.dryRun === true ? { dryRun: true } : {}),
          ...(flags.maxCost === undefined ? {} : { maxCostUsd: flags.maxCost }),
          ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
          cwd,
          env,
        }),
      );
    });
}
