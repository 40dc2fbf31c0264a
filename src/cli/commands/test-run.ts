import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CliOptions } from "vitest/node";
import { resolveVerdictHome } from "../../config/project-config.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import { describeStopSignal } from "../../evaluate/cancel-on-interrupt.ts";
import { describeBudgetShare } from "../../report/cost-estimate-report.ts";
import { createGitHubActionsReporter } from "../../report/github-actions-report.ts";
import { createHtmlReporter } from "../../report/html-report.ts";
import { createJsonReporter } from "../../report/json-report.ts";
import { createJUnitReporter } from "../../report/junit-report.ts";
import { createMarkdownReporter } from "../../report/markdown-report.ts";
import type { EvaluationResult } from "../../results/evaluation-result.ts";
import type { JudgeTextMode } from "../../results/judge-text.ts";
import type { RunReporter } from "../../results/runner-events.ts";
import { emptySpending } from "../../results/spending.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { parseShard } from "../../store/run-shards.ts";
import { CASE_SHARD_KEY, rankTestFiles } from "../../vitest/case-shard.ts";
import {
  REQUEST_SLOTS_ENV,
  type RequestSlotBroker,
  startRequestSlotBroker,
} from "../../vitest/request-slots.ts";
import { toTestRunEnvironment } from "../../vitest/test-run-settings.ts";
import { VerdictReporter } from "../../vitest/verdict-reporter.ts";
import { EXIT_CODES, exitCodeForOutcome } from "../exit-codes.ts";
import { githubActionsOf } from "../github-actions.ts";
import {
  type OutputFormat,
  type OutputRequest,
  type OutputTarget,
  resolveOutputTargets,
} from "../output-targets.ts";
import { startTestRunBudget, type TestRunBudget } from "./test-run-budget.ts";
import { TestRunStop } from "./test-run-stop.ts";
import { WatchHeartbeat } from "./watch-heartbeat.ts";
import { refuseWithWatch, WatchSession, watchIdentifier } from "./watch-session.ts";

/** Options of {@link runTestRun}: the flags of `verdict test run`. */
export interface TestRunCommandOptions {
  /** Test files or folders; folders are searched for `*.eval.ts`. Empty: the whole project. */
  paths: string[];
  /** Reuse judge answers from earlier runs (the default, `-c/--use-cache`; `--no-cache` turns it off). */
  cache: boolean;
  ignoreErrors: boolean;
  skipOnMissingParams: boolean;
  verbose: boolean;
  /** Judge requests in flight per judge model, per Vitest worker. */
  maxConcurrent?: number;
  /** Trials of each case. */
  repeat?: number;
  /** Stop at the first failing test (Vitest's `bail: 1`). */
  exitOnFirstFailure: boolean;
  /**
   * Run the tests of each file at the same time (Vitest's `sequence.concurrent`, up to
   * `maxConcurrent` tests at once); `false` (`--no-concurrent`) runs them one after another.
   * @default true
   */
  concurrent?: boolean;
  /** Which cases the end report lists; `"none"` prints no report and no progress. */
  display: "all" | "failing" | "passing" | "none";
  identifier?: string;
  /**
   * `--resume`: continue the latest stored run of `identifier` rather than start a new one; the
   * tests run again and the judge cache answers what the earlier run paid for. The store must
   * open: else exit 2 before any test runs.
   */
  resume?: boolean;
  /** The `--output` flags: each report's format, and its file when given as `FORMAT=PATH`. */
  outputs?: readonly OutputRequest[];
  /**
   * The file of a single `--output`.
   * @default `verdict-report.<json|xml|html|md>` in `cwd`
   */
  outputFile?: string;
  /**
   * Under GitHub Actions (`GITHUB_ACTIONS=true`): append the Markdown report to the job summary
   * and annotate failing tests at their file and line; `false` with `--no-github`.
   * @default true
   */
  github?: boolean;
  /** `--shard i/n`: run the tests dealt to shard i of n (see `shardOfTest`). */
  shard?: string;
  /** `--judge`: the judge model of this run (`VERDICT_MODEL` for the workers); `"fake"` for the fake judge. */
  judge?: string;
  /**
   * `--watch`: run the suite, then run again the test files that change (and those importing a
   * changed module) on each save, until `q` (exit 0) or Ctrl-C (130). Each run is stored under
   * `identifier` (by default `watch-<date>-<time>-<hex>`, one per session), so that
   * `verdict view` follows the session; see docs/watch.md.
   * @default false
   */
  watch?: boolean;
  /** `--judge-text`: what the store keeps of the judge's prompts and answers (`VERDICT_JUDGE_TEXT` for the workers). */
  judgeText?: JudgeTextMode;
  /**
   * `--dry-run`: ask no judge; print what each metric and the run are expected to spend (judge
   * calls, tokens, cost, with their range; cached answers free). The tests still run.
   */
  dryRun?: boolean;
  /** `--max-cost`: the run's budget in USD; it stops (exit 4) before its spend could pass it. */
  maxCostUsd?: number;
  /** `--max-tokens`: the run's budget in judge tokens. */
  maxTokens?: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The export condition that makes `verdict` load its TypeScript sources (development, e2e). */
const SOURCE_CONDITION = "verdict-source";
/** Vite's default server conditions, which setting `resolve.conditions` replaces. */
const SERVER_CONDITIONS = ["module", "node", "development|production"];
/** Evals call a judge: far slower than Vitest's 5 s default. A test's own `timeout` wins. */
const TEST_TIMEOUT_MS = 10 * 60 * 1000;
/** Judge requests in flight per model when `-n` is not given (the assertions' own default). */
const DEFAULT_MAX_CONCURRENT = 20;
/**
 * Tests of a file in flight per judge request allowed in flight. A test waits on several judge
 * steps in a row; with only `-n` tests started, the last tests of a file start when the first
 * finish and pay their whole chain of steps after them (21 tests at 400 ms: 2.65 s against
 * 1.70 s through evaluate()). The scheduler, not Vitest, bounds the load, and it serves earlier
 * tests first, so extra started tests only queue.
 */
const TESTS_PER_JUDGE_REQUEST = 5;
/**
 * Eval files run at once in this many workers at least (more on machines with more cores):
 * they wait on the judge, not the CPU, and Vitest's default (cores − 1) ran the files of a
 * 2-core CI runner one after another (4 files: 3.05× evaluate()). The shared slots keep `-n`
 * the limit across all of them.
 */
const MIN_WORKERS = 4;

/**
 * verdict's Vitest setup file, beside this module's folder (`src/` or `dist/`): it gives each
 * test the async context that files its assertions under it when tests run concurrently.
 */
function setupFilePath(): string {
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return fileURLToPath(new URL(`../../vitest/setup${extension}`, import.meta.url));
}

function usage(message: string): number {
  process.stderr.write(`${message}\n`);
  return EXIT_CODES.usage;
}

function posix(file: string): string {
  return file.split(path.sep).join("/");
}

/** Whether this process runs with `--conditions=verdict-source` (flag or NODE_OPTIONS). */
function usesSourceCondition(env: NodeJS.ProcessEnv): boolean {
  const args = [...process.execArgv, ...(env.NODE_OPTIONS?.split(/\s+/) ?? [])];
  return args.some(
    (arg, position) =>
      arg === `--conditions=${SOURCE_CONDITION}` ||
      arg === `-C=${SOURCE_CONDITION}` ||
      ((arg === "--conditions" || arg === "-C") && args[position + 1] === SOURCE_CONDITION),
  );
}

/** The Vitest `include` globs for the given paths, or an error message. */
function includePatterns(options: { paths: string[]; cwd: string }): string[] | string {
  if (options.paths.length === 0) return ["**/*.eval.ts"];
  const patterns: string[] = [];
  for (const given of options.paths) {
    const absolute = path.resolve(options.cwd, given);
    const stat = statSync(absolute, { throwIfNoEntry: false });
    if (stat === undefined) return `No such file or folder: "${given}" (looked in ${options.cwd}).`;
    const relative = posix(path.relative(options.cwd, absolute));
    const base =
      relative.startsWith("..") || path.isAbsolute(relative) ? posix(absolute) : relative;
    if (stat.isDirectory()) patterns.push(base === "" ? "**/*.eval.ts" : `${base}/**/*.eval.ts`);
    else patterns.push(base);
  }
  return patterns;
}

/** Options of {@link createOutputReporter}. */
export interface CreateOutputReporterOptions {
  output: OutputFormat;
  /** Absolute path of the report file. */
  file: string;
  /** The CI shard the run covers, `"i/n"`: recorded in the JSON report for `verdict merge`. */
  shard?: string | undefined;
}

/**
 * The reporter that writes an `--output` report when the run ends.
 * @example
 * createOutputReporter({ output: "junit", file: "/ci/verdict-report.xml" });
 */
export function createOutputReporter(options: CreateOutputReporterOptions): RunReporter {
  if (options.output === "json") {
    return createJsonReporter({
      file: options.file,
      ...(options.shard === undefined ? {} : { shard: options.shard }),
    });
  }
  if (options.output === "junit") return createJUnitReporter({ file: options.file });
  if (options.output === "markdown") return createMarkdownReporter({ file: options.file });
  return createHtmlReporter({ file: options.file });
}

/**
 * `verdict test run [paths…]`: runs `*.eval.ts` files (and any test file given by path)
 * through Vitest's Node API with {@link VerdictReporter}, which gathers every `assertTest` /
 * `toPass` of the run into one stored run and prints verdict's end report. The flags reach
 * the Vitest workers as `VERDICT_*` variables. Returns the exit code (it never exits):
 * 2 for a usage or configuration error (bad shard, no test files, Vitest config errors, no
 * judge configured, a test file that does not load), 3 when judge errors left cases unscored,
 * 1 when a test failed, 130, 143 or 129 when interrupted by Ctrl-C, SIGTERM or SIGHUP (the run
 * is stored as interrupted, the end report shows what finished and the --output reports are
 * written), else 0. With `resume`, a store that cannot be opened exits 2 before any test.
 * @example
 * const code = await runTestRun({
 *   paths: ["evals/"], cache: true, ignoreErrors: false, skipOnMissingParams: false,
 *   verbose: false, exitOnFirstFailure: false, display: "failing", cwd: process.cwd(), env: process.env,
 * });
 */
export async function runTestRun(options: TestRunCommandOptions): Promise<number> {
  // From the start: a stop signal before the first test still stops the run before it.
  const stop = new TestRunStop();
  try {
    // One judge-request limit (-n) for all the workers together, kept in this process.
    const broker = await startRequestSlotBroker({
      maxConcurrent: options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
    });
    try {
      return await runWithBroker(options, broker, stop);
    } finally {
      await broker.close();
    }
  } finally {
    stop.close();
  }
}

async function runWithBroker(
  options: TestRunCommandOptions,
  broker: RequestSlotBroker,
  stop: TestRunStop,
): Promise<number> {
  const { cwd } = options;
  // Whole milliseconds: a file system may keep times coarser than performance clocks.
  const startedAt = Math.floor(Date.now() / 1000) * 1000;
  if (options.shard !== undefined) {
    const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(options.shard);
    const [index, count] = [Number(match?.[1]), Number(match?.[2])];
    if (match === null || index < 1 || count < 1 || index > count) {
      return usage(`--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3; got "${options.shard}".`);
    }
  }
  for (const [flag, value] of [
    ["--max-concurrent", options.maxConcurrent],
    ["--repeat", options.repeat],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      return usage(`${flag} takes a whole number of 1 or more; got ${value}.`);
    }
  }
  if (options.resume && options.identifier === undefined) {
    return usage(
      "--resume needs --identifier NAME: the name of the run to continue (as given when it started).",
    );
  }
  const watchConflict = options.watch ? refuseWithWatch(options) : null;
  if (watchConflict !== null) return usage(watchConflict);
  if (options.resume && !options.cache) {
    return usage(
      "--resume reuses the judge answers of the finished cases from the judge cache: leave out --no-cache.",
    );
  }
  const include = includePatterns({ paths: options.paths, cwd });
  if (typeof include === "string") return usage(include);
  if (options.dryRun && (options.outputs?.length ?? 0) > 0) {
    return usage("--dry-run writes no report, it prints the estimate: leave out --output.");
  }

  const targets = resolveOutputTargets({
    outputs: options.outputs ?? [],
    outputFile: options.outputFile,
    cwd,
  });
  if (typeof targets === "string") return usage(targets);
  const shard = options.shard?.replace(/\s+/g, "");
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    // Absolute, so the workers, whatever their working folder, share this store and cache.
    VERDICT_HOME: resolveVerdictHome({ env: options.env, cwd }),
    [REQUEST_SLOTS_ENV]: broker.address,
    ...(options.judge === undefined ? {} : { VERDICT_MODEL: options.judge }),
    ...(options.judgeText === undefined ? {} : { VERDICT_JUDGE_TEXT: options.judgeText }),
    ...toTestRunEnvironment({
      settings: {
        ...(options.cache ? {} : { cache: false }),
        ...(options.ignoreErrors ? { ignoreErrors: true } : {}),
        ...(options.skipOnMissingParams ? { skipOnMissingParams: true } : {}),
        ...(options.verbose ? { verbose: true } : {}),
        ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
        ...(options.repeat === undefined ? {} : { repeat: options.repeat }),
        ...(options.dryRun ? { dryRun: true } : {}),
      },
    }),
  };
  // One budget for every worker, kept here (a dry run spends nothing: it only compares).
  const budget = options.dryRun
    ? null
    : await startTestRunBudget({
        maxCostUsd: options.maxCostUsd,
        maxTokens: options.maxTokens,
        resume: options.resume === true,
        identifier: options.identifier,
        env,
        cwd,
      });
  try {
    return await runVitest({ options, env, budget, include, targets, shard, stop, startedAt });
  } finally {
    await budget?.close();
  }
}

/** Runs the tests through Vitest's Node API with verdict's reporter; returns the exit code. */
async function runVitest(context: {
  options: TestRunCommandOptions;
  env: NodeJS.ProcessEnv;
  budget: TestRunBudget | null;
  include: string[];
  targets: OutputTarget[];
  shard: string | undefined;
  stop: TestRunStop;
  startedAt: number;
}): Promise<number> {
  const { options, include, targets, shard, stop, startedAt, budget } = context;
  const { cwd } = options;
  const env = { ...context.env, ...budget?.environment };
  const caseShard = shard === undefined ? null : parseShard(shard);
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
  const identifier =
    options.identifier ?? (options.watch ? watchIdentifier(new Date()) : undefined);
  const reporter = new VerdictReporter({
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
  const watch =
    options.watch && identifier !== undefined
      ? new WatchSession({
          identifier,
          lastResult: () => reporter.result,
          stop,
          openHeartbeat: () =>
            WatchHeartbeat.open({
              env,
              cwd,
              warn: (message) => process.stderr.write(`${message}\n`),
            }),
        })
      : null;

  const source = usesSourceCondition(options.env);
  const cliOptions: CliOptions = {
    watch: watch !== null,
    root: cwd,
    include,
    reporters: [reporter, stop.reporter, ...(watch === null ? [] : [watch.reporter])],
    env: Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    testTimeout: TEST_TIMEOUT_MS,
    maxWorkers: Math.max(MIN_WORKERS, availableParallelism()),
    // Each test's judge calls go through its worker's one scheduler, which bounds the load
    // (`-n`): running a file's tests at once costs nothing more, and saves their latencies.
    ...(options.concurrent === false
      ? {}
      : {
          sequence: { concurrent: true },
          maxConcurrency:
            (options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT) * TESTS_PER_JUDGE_REQUEST,
        }),
    ...(options.exitOnFirstFailure ? { bail: 1 } : {}),
    // Where each test is: failing tests are annotated at their line (GitHub Actions).
    includeTaskLocation: true,
    // A shard runs some tests of every file (not Vitest's files per shard): the others are
    // skipped, and a shard may get none of a file's tests, or none at all.
    ...(caseShard === null ? {} : { passWithNoTests: true }),
    ...(source ? { execArgv: [`--conditions=${SOURCE_CONDITION}`] } : {}),
  };
  const conditions = [SOURCE_CONDITION, ...SERVER_CONDITIONS];
  // In the overrides, not the CLI options: Vite merges them with the project's own setupFiles.
  const viteOverrides = {
    test: { setupFiles: [setupFilePath()] },
    // The store is written all through a run: nothing there is a change to re-run for.
    ...(watch === null
      ? {}
      : { server: { watch: { ignored: [`${posix(env.VERDICT_HOME ?? "")}/**`] } } }),
    ...(source ? { resolve: { conditions }, ssr: { resolve: { conditions } } } : {}),
  };

  let createVitest: typeof import("vitest/node").createVitest;
  try {
    // Vitest colours its output (tinyrainbow) whenever TERM is not "dumb", even into a pipe or
    // a CI log. Off a terminal, and with NO_COLOR, verdict prints none (unless FORCE_COLOR asks
    // for them): set before Vitest is loaded, which decides once.
    if (!wantsColour(options.env)) process.env.NO_COLOR = "1";
    ({ createVitest } = await import("vitest/node"));
  } catch (error) {
    return usage(
      `verdict test run needs Vitest 5 in this project: npm install --save-dev vitest (${(error as Error).message}).`,
    );
  }
  // Vitest sets process.exitCode on failures; the caller decides the exit code.
  const exitCodeBefore = process.exitCode;
  try {
    // Ctrl-C, SIGTERM, SIGHUP: see TestRunStop.
    let vitest: Awaited<ReturnType<typeof createVitest>>;
    try {
      vitest = await stop.createVitest(() => createVitest(cliOptions, viteOverrides));
    } catch (error) {
      return usage(`Vitest could not start: ${(error as Error).message}`);
    }
    if (caseShard !== null) {
      const files = await vitest.globTestSpecifications();
      vitest.provide(CASE_SHARD_KEY, {
        ...caseShard,
        fileRanks: rankTestFiles(
          files.map((file) => ({ root: file.project.config.root, moduleId: file.moduleId })),
        ),
      });
    }
    if (stop.signal !== null) {
      // Stopped before any test ran: nothing was stored; the reports say so.
      await vitest.close();
      writeEmptyRun({
        message: `Interrupted (${describeStopSignal(stop.signal)}) before any test ran: nothing was evaluated.`,
        status: "interrupted",
        identifier: options.identifier,
        targets,
        shard,
      });
      return stop.exitCode ?? EXIT_CODES.interrupted;
    }
    // Once the suite ran, a watch session takes over (until q or a stop signal).
    let watching: WatchSession | null = null;
    await watch?.listen(vitest);
    try {
      await vitest.start();
      watching = stop.signal === null ? watch : null;
    } catch (error) {
      if ((error as { code?: unknown }).code === "VITEST_FILES_NOT_FOUND") {
        return usage(
          `No test files found: looked for ${include.join(", ")} in ${cwd}. Name eval files *.eval.ts, or pass their paths.`,
        );
      }
      // A run that needs its store and cannot open it (--resume): the store's own message.
      if (error instanceof StoreError || error instanceof ConfigError) {
        return usage(redactSecretText(error.message));
      }
      if (reporter.outcome === null) {
        return usage(`Vitest could not run: ${(error as Error).message}`);
      }
    } finally {
      if (watching === null) {
        await watch?.close();
        await vitest.close();
      }
    }
    if (watching !== null) return await watching.watch();
    if (stop.exitCode !== null) {
      printWrittenReports(targets);
      return stop.exitCode;
    }
  } finally {
    process.exitCode = exitCodeBefore;
  }

  const unwritten = printWrittenReports(targets, startedAt);
  const outcome = reporter.outcome;
  if (outcome === null) return usage("No test ran: nothing was evaluated.");
  const { estimate } = reporter;
  if (estimate !== null && options.maxCostUsd !== undefined) {
    const share = describeBudgetShare({ estimate, maxCostUsd: options.maxCostUsd });
    if (share !== null) process.stdout.write(`${share}\n`);
  }
  const code = exitCodeForOutcome({ outcome });
  // A CI job must not pass without the report it asked for.
  for (const target of unwritten) {
    process.stderr.write(
      `Error: the ${target.format} report was not written to ${target.file} (see the warning above): check that the folder can be written.\n`,
    );
  }
  return unwritten.length > 0 && code === EXIT_CODES.passed ? EXIT_CODES.usage : code;
}

/**
 * A run with nothing in it: one stopped before any test ran. Prints `message` and writes
 * the --output reports, which say which shard it was. (A shard dealt no test runs as usual
 * and says so at its end.)
 */
function writeEmptyRun(options: {
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

/** Colours only on a terminal (stdout and stderr), never with NO_COLOR; FORCE_COLOR forces them. */
function wantsColour(env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return process.stdout.isTTY === true && process.stderr.isTTY === true;
}

/**
 * Says which reports were written; returns those that were not (no file written since the run
 * started: a file left by an earlier run does not count).
 */
function printWrittenReports(targets: readonly OutputTarget[], startedAt = 0): OutputTarget[] {
  const unwritten: OutputTarget[] = [];
  for (const target of targets) {
    if (existsSync(target.file) && statSync(target.file).mtimeMs >= startedAt) {
      process.stdout.write(`Report written to ${target.file}\n`);
    } else unwritten.push(target);
  }
  return unwritten;
}
