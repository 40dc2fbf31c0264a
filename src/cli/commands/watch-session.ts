import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Reporter, TestModule, TestSpecification, Vitest } from "vitest/node";
import { describeStopSignal, STOP_SIGNALS } from "../../evaluate/cancel-on-interrupt.ts";
import { showName } from "../../report/format.ts";
import { describeWatchRun } from "../../report/watch-summary.ts";
import type { EvaluationResult, TestResult } from "../../results/evaluation-result.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { failedToLoad } from "../../vitest/failed-to-load.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import { posixPath } from "../posix-path.ts";
import type { TestRunStop } from "./test-run-stop.ts";
import type { WatchHeartbeat } from "./watch-heartbeat.ts";
import { listenForWatchKeys, type WatchKeys } from "./watch-keys.ts";

/** Options of {@link WatchSession}. */
export interface WatchSessionOptions {
  /** The identifier every run of the session is stored under. */
  identifier: string;
  /** The last run's result, once it ended (the `VerdictReporter`'s). */
  lastResult: () => EvaluationResult | null;
  /** The command's stop signals (Ctrl-C, SIGTERM, SIGHUP): each ends the session. */
  stop: TestRunStop;
  /** Opens what beats for the latest run while the session waits. @default none */
  openHeartbeat?: () => Promise<WatchHeartbeat>;
  /** @default process.stdin */
  stdin?: NodeJS.ReadStream;
  /** @default process.stdout */
  stdout?: NodeJS.WritableStream;
}

/**
 * The identifier of a watch session's runs when none is given: `watch-` and the local time it
 * started, with 4 random hex digits so that two sessions started in the same second differ.
 * @example
 * watchIdentifier(new Date(2025, 2, 1, 14, 3, 12)); // "watch-20250301-140312-9f3a"
 */
export function watchIdentifier(startedAt: Date): string {
  const two = (value: number) => String(value).padStart(2, "0");
  const date = `${startedAt.getFullYear()}${two(startedAt.getMonth() + 1)}${two(startedAt.getDate())}`;
  const time = `${two(startedAt.getHours())}${two(startedAt.getMinutes())}${two(startedAt.getSeconds())}`;
  return `watch-${date}-${time}-${randomBytes(2).toString("hex")}`;
}

/**
 * Why `--watch` cannot go with the other flags given, or `null`: `--shard`, `--resume`,
 * `--output`, `--dry-run`, `--max-cost` and `--max-tokens` are about one whole run (a budget is
 * spent, an estimate made, over the whole suite), and a watch session re-runs only what changes.
 */
export function refuseWithWatch(flags: {
  shard?: string | undefined;
  resume?: boolean | undefined;
  outputs?: readonly unknown[] | undefined;
  dryRun?: boolean | undefined;
  maxCostUsd?: number | undefined;
  maxTokens?: number | undefined;
}): string | null {
  const conflict = [
    ["--shard", flags.shard !== undefined],
    ["--resume", flags.resume === true],
    ["--output", (flags.outputs ?? []).length > 0],
    ["--dry-run", flags.dryRun === true],
    ["--max-cost", flags.maxCostUsd !== undefined],
    ["--max-tokens", flags.maxTokens !== undefined],
  ].find(([, given]) => given)?.[0];
  return conflict === undefined
    ? null
    : `--watch cannot be used with ${conflict}: a watch session re-runs only the files that change, and ${conflict} is about one whole run. Leave out --watch for that run.`;
}

/**
 * `verdict test run --watch`: Vitest's own watch mode runs the suite, then re-runs the test
 * files that changed and those that import a changed module. The session keeps each file's
 * latest results, prints after each run what changed since the previous one
 * ({@link describeWatchRun}), and ends on `q` (exit 0) or on a stop signal (130, 143, 129);
 * a run in progress then ends as interrupted, and is stored so. Its {@link reporter} goes
 * into the Vitest run beside the `VerdictReporter`.
 */
export class WatchSession {
  private readonly options: WatchSessionOptions;
  private readonly stdout: NodeJS.WritableStream;
  /** Each test file's cases as of its latest run. */
  private readonly suite = new Map<string, TestResult[]>();
  private runs = 0;
  private runFiles: string[] = [];
  /** Files of the run that did not load (a syntax error while editing): their cases are kept. */
  private brokenFiles = new Set<string>();
  /** Test files deleted since the last run: their cases are gone in the next summary. */
  private readonly removedFiles = new Set<string>();
  private reason: string | null = null;
  /** Set once `q` or a stop signal ends the session: no summary, no new run. */
  private ending = false;
  private keys: WatchKeys | null = null;
  private heartbeat: WatchHeartbeat | null = null;
  private vitest: Vitest | null = null;
  private pressedQuit: () => void = () => {};
  private readonly quit = new Promise<"q">((resolve) => {
    this.pressedQuit = () => resolve("q");
  });

  constructor(options: WatchSessionOptions) {
    this.options = options;
    this.stdout = options.stdout ?? process.stdout;
  }

  /** What the session follows in the Vitest run. */
  readonly reporter: Reporter = {
    onTestRunStart: async (specifications: ReadonlyArray<TestSpecification>) => {
      // The run's own heartbeat takes over.
      await this.heartbeat?.pause();
      this.runFiles = [
        ...new Set(
          specifications.map((specification) =>
            posixPath(path.relative(specification.project.config.root, specification.moduleId)),
          ),
        ),
      ].sort();
      this.brokenFiles = new Set();
    },
    onTestRunEnd: (testModules: ReadonlyArray<TestModule>) => {
      for (const testModule of testModules) {
        if (failedToLoad(testModule)) this.brokenFiles.add(posixPath(testModule.relativeModuleId));
      }
    },
    onWatcherRerun: (_files: string[], trigger?: string) => {
      // A re-run asked for with `a` says so itself.
      if (this.reason === null && trigger !== undefined) this.reason = `${trigger} changed`;
    },
    onTestRemoved: (trigger?: string) => {
      if (trigger === undefined || this.vitest === null) return;
      this.removedFiles.add(posixPath(path.relative(this.vitest.config.root, trigger)));
    },
    onWatcherStart: () => this.runEnded(),
    onServerRestart: () => {
      this.reason = "the Vitest configuration changed · every file re-run";
    },
    // Vitest forgets a cancel from before its run began: `q` while it starts must still stop it.
    onTestModuleQueued: () => {
      if (this.ending) void this.vitest?.cancelCurrentRun("keyboard-input");
    },
  };

  /**
   * Listens to the keys from now on: from before the suite's first run, so that `q` stops that
   * run too. Call {@link watch} once Vitest has run the suite, or {@link close} if it failed.
   */
  async listen(vitest: Vitest): Promise<void> {
    this.vitest = vitest;
    this.heartbeat = (await this.options.openHeartbeat?.()) ?? null;
    this.keys = listenForWatchKeys({
      ...(this.options.stdin === undefined ? {} : { stdin: this.options.stdin }),
      quit: () => {
        this.ending = true;
        this.pressedQuit();
        // Stored as interrupted, like a run stopped by Ctrl-C.
        void vitest.cancelCurrentRun("keyboard-input");
      },
      rerunAll: () => void this.rerunAll(vitest),
    });
    // A saved Vitest config restarts Vitest, which then runs and watches nothing until started
    // again, as Vitest's own CLI does through this hook (not in Vitest's types).
    const restarted = vitest as Vitest & {
      onAfterSetServer?: (handler: () => Promise<void>) => void;
    };
    restarted.onAfterSetServer?.(async () => {
      if (this.ending) return;
      await vitest.start().catch((error: unknown) => {
        this.stdout.write(
          `\nThe suite could not run after the Vitest configuration changed: ${redactSecretText((error as Error).message)}. Fix it and save it again, or quit with q.\n`,
        );
      });
    });
  }

  /**
   * Watches until `q` or a stop signal, once Vitest has run the suite (`vitest.start()`): a
   * run then in progress is cancelled (and stored as interrupted); closes Vitest and returns
   * the exit code: 0 for `q`, 130, 143 or 129 for a signal.
   */
  async watch(): Promise<number> {
    const vitest = this.vitest;
    if (vitest === null) throw new Error("WatchSession.watch() needs listen(vitest) first.");
    try {
      // A signal has cancelled the run already (TestRunStop).
      const ended = await Promise.race([this.quit, this.options.stop.stopped]);
      this.ending = true;
      await vitest.close();
      return ended === "q" ? EXIT_CODES.passed : STOP_SIGNALS[ended];
    } finally {
      await this.close();
    }
  }

  /**
   * Stops listening to the keys, gives the terminal back and stops the heartbeat (safe to call
   * more than once).
   */
  async close(): Promise<void> {
    this.keys?.close();
    this.keys = null;
    await this.heartbeat?.close();
    this.heartbeat = null;
  }

  private async rerunAll(vitest: Vitest): Promise<void> {
    if (this.ending) return;
    // One run at a time: a run in progress finishes first (Vitest queues watched changes too).
    await vitest.waitForTestRunEnd();
    if (this.ending) return;
    this.reason = "every file re-run (a)";
    const specifications = await vitest.globTestSpecifications();
    await vitest.rerunTestSpecifications(specifications, true);
  }

  private runEnded(): void {
    if (this.ending) return;
    this.runs += 1;
    const result = this.options.lastResult();
    if (result !== null) {
      this.heartbeat?.follow(result.testRunId);
      const before = [...this.suite.values()].flat();
      for (const file of this.removedFiles) {
        // Deleted, or saved by an editor that replaces the file: gone unless it ran again.
        if (!this.runFiles.includes(file)) this.suite.delete(file);
      }
      this.removedFiles.clear();
      for (const file of this.runFiles) {
        if (this.brokenFiles.has(file)) continue;
        this.suite.set(
          file,
          result.testResults.filter((testResult) => (testResult.file ?? "") === file),
        );
      }
      const after = [...this.suite.values()].flat();
      this.stdout.write(
        `\n${describeWatchRun({
          run: this.runs,
          reason: this.reason,
          files: this.runFiles,
          result,
          before,
          after,
        })}\n`,
      );
    }
    this.reason = null;
    if (this.keys !== null) this.printWatching();
  }

  private printWatching(): void {
    const how =
      this.keys?.mode === "lines"
        ? "type q and Enter to quit, a and Enter to re-run every file"
        : `press q to quit, a to re-run every file, ${describeStopSignal("SIGINT")} to stop`;
    this.stdout.write(
      `Watching for changes (runs stored as "${showName(this.options.identifier)}"; verdict view follows them): ${how}.\n`,
    );
  }
}
