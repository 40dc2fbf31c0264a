import { type Command, Option } from "commander";
import { JUDGE_TEXT_MODES, type JudgeTextMode } from "../../results/judge-text.ts";
import type { OutputRequest } from "../output-targets.ts";
import type { CommandContext } from "./command-context.ts";
import { dollars, nonEmpty, shard, wholeNumber } from "./flag-parsers.ts";
import {
  type DisplayMode,
  displayOption,
  noGitHubOption,
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
  github: boolean;
  shard?: string;
  judge?: string;
  watch?: true;
  judgeText?: JudgeTextMode;
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
    .addOption(
      noGitHubOption(
        "append the Markdown report to the job summary ($GITHUB_STEP_SUMMARY) nor annotate failing tests at their file and line",
      ),
    )
    .option(
      "--shard <i/n>",
      "run only shard i of n (CI): the tests of every file are dealt over the shards (15 tests over 4: 4, 4, 4, 3); verdict merge rebuilds one run, and the shards of one build (VERDICT_RUN_GROUP, or the CI build's id) write one stored run",
      shard,
    )
    .option(
      "--judge <model>",
      'judge model for this run (sets VERDICT_MODEL); "fake": the built-in fake judge, no key, scores not real',
      nonEmpty("--judge"),
    )
    .option(
      "-w, --watch",
      "run again the files you change (and those importing a changed module) on save; q quits",
    )
    .addOption(
      new Option(
        "--judge-text <mode>",
        'what the store keeps of the judge\'s prompts and answers: "text" (shown by verdict view) or "hash" (their SHA-256 only); sets VERDICT_JUDGE_TEXT',
      ).choices(JUDGE_TEXT_MODES),
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
    .addHelpText(
      "after",
      [
        "",
        "Watch mode (--watch): runs the suite, then on each save runs again the eval files that",
        "changed and those importing a changed module; the judge cache answers what did not change.",
        "Each run is stored under --identifier (default: watch-<date>-<time>-<hex>, one per",
        "session), so the run page of verdict view follows the session. After each run, a summary:",
        "cases that flipped between passed and failed, metric means before → after, judge calls",
        "paid. Keys: q quits (exit 0), a re-runs every file, Ctrl-C stops (exit 130); a run in",
        "progress is then stored as interrupted. Without a terminal, type q and Enter, or send",
        "SIGINT/SIGTERM. Not with --shard, --resume, --output, --dry-run, --max-cost or",
        "--max-tokens. See docs/watch.md.",
        "",
        "Cost (docs/cost.md): --dry-run estimates the judge calls, tokens and dollars of the run",
        "without asking a judge; --max-cost and --max-tokens stop the run before a judge call",
        "could pass the cap, keep the cases finished and exit 4 (resume with a larger cap).",
        "",
        "Under GitHub Actions (GITHUB_ACTIONS=true) the Markdown report is appended to the job",
        "summary and failing tests are annotated at their file and line (--no-github: neither).",
        "A CI workflow that shards, merges and compares: docs/ci.md.",
        "",
        "Exit codes: 0 all passed, 1 some test failed, 2 usage or configuration error, 3 judge",
        "errors left test cases unscored, 4 the budget (--max-cost, --max-tokens) stopped the run,",
        "130 interrupted by Ctrl-C, 143 by SIGTERM (a cancelled CI job), 129 by SIGHUP: the run is",
        "then stored as interrupted and its reports written; continue it with --identifier NAME",
        "--resume.",
      ].join("\n"),
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
          github: flags.github,
          ...(flags.shard === undefined ? {} : { shard: flags.shard }),
          ...(flags.judge === undefined ? {} : { judge: flags.judge }),
          ...(flags.watch === true ? { watch: true } : {}),
          ...(flags.judgeText === undefined ? {} : { judgeText: flags.judgeText }),
          ...(flags.dryRun === true ? { dryRun: true } : {}),
          ...(flags.maxCost === undefined ? {} : { maxCostUsd: flags.maxCost }),
          ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
          cwd,
          env,
        }),
      );
    });
}
