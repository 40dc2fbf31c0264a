import { ConfigError } from "../../errors/config-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import { describeStopSignal } from "../../evaluate/cancel-on-interrupt.ts";
import { describeBudgetShare } from "../../report/cost-estimate-report.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { parseShard } from "../../store/run-shards.ts";
import { CASE_SHARD_KEY, rankTestFiles } from "../../vitest/case-shard.ts";
import { type RequestSlotBroker, startRequestSlotBroker } from "../../vitest/request-slots.ts";
import { EXIT_CODES, exitCodeForOutcome } from "../exit-codes.ts";
import type { OutputTarget } from "../output-targets.ts";
import { checkTestRunFlags } from "./check-test-run-flags.ts";
import { createTestRunReporter } from "./create-test-run-reporter.ts";
import { loadVitest } from "./load-vitest.ts";
import { printWrittenReports } from "./print-written-reports.ts";
import { startTestRunBudget, type TestRunBudget } from "./test-run-budget.ts";
import type { TestRunCommandOptions } from "./test-run-command-options.ts";
import { testRunEnvironment } from "./test-run-environment.ts";
import { TestRunStop } from "./test-run-stop.ts";
import { DEFAULT_MAX_CONCURRENT, vitestRunOptions } from "./vitest-run-options.ts";
import { WatchHeartbeat } from "./watch-heartbeat.ts";
import { WatchSession, watchIdentifier } from "./watch-session.ts";
import { writeEmptyRun } from "./write-empty-run.ts";

function usage(message: string): number {
  process.stderr.write(`${message}\n`);
  return EXIT_CODES.usage;
}

/**
 * `verdict test run [paths…]`: runs `*.eval.ts` files (and any test file given by path)
 * through Vitest's Node API with `VerdictReporter`, which gathers every `assertTest` /
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
  const flags = checkTestRunFlags(options);
  if (typeof flags === "string") return usage(flags);
  const { include, targets } = flags;
  const shard = options.shard?.replace(/\s+/g, "");
  const env = testRunEnvironment(options, broker.address);
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
  const identifier =
    options.identifier ?? (options.watch ? watchIdentifier(new Date()) : undefined);
  const reporter = createTestRunReporter({
    options,
    env,
    budget,
    targets,
    shard,
    caseShard,
    identifier,
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

  const { cliOptions, viteOverrides } = vitestRunOptions({
    options,
    include,
    env,
    reporters: [reporter, stop.reporter, ...(watch === null ? [] : [watch.reporter])],
    watching: watch !== null,
    sharded: caseShard !== null,
  });

  const createVitest = await loadVitest(options.env);
  if (typeof createVitest === "string") return usage(createVitest);
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
