import type { TestError } from "vitest";
import type { TestCase, TestModule } from "vitest/node";
import { judgeCallErrorKind } from "../errors/judge-call-error.ts";
import { StoreError } from "../errors/store-error.ts";
import { defaultReporters } from "../evaluate/default-reporters.ts";
import { RunRecorder } from "../evaluate/run-recorder.ts";
import { describeBudgetStop, resumeTestRunHint } from "../report/describe-budget-stop.ts";
import { formatPlural, stripColourCodes } from "../report/format.ts";
import type {
  BudgetSummary,
  EvaluationResult,
  RunStatus,
  TestResult,
} from "../results/evaluation-result.ts";
import { decideRunStatus } from "../results/run-status.ts";
import type { RunReporter } from "../results/runner-events.ts";
import {
  addSpending,
  emptySpending,
  spendingOfResults,
  spendingSince,
} from "../results/spending.ts";
import { decideTestRunOutcome, type TestRunOutcome } from "../results/test-run-outcome.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { whyRunNeedsStore } from "../store/open-store.ts";
import { shellWord } from "../store/run-liveness.ts";
import type { Store } from "../store/run-store.ts";
import { type CaseIndexer, fingerprintCase } from "./case-indexer.ts";
import { fileRankOf, testsOfShard } from "./case-shard.ts";
import { readTestRunSettings } from "./test-run-settings.ts";
import type { VerdictCaseRecord } from "./verdict-case-record.ts";
import type { VerdictReporterOptions } from "./verdict-reporter-options.ts";

/** Options of {@link RunState}. */
export interface RunStateOptions {
  options: VerdictReporterOptions;
  indexer: CaseIndexer;
  /** Test files in the run: the progress total is known once they are all collected. */
  expectedModules: number;
  /** The rank of each test file of the suite (see `rankTestFiles`): which tests a shard runs. */
  fileRanks?: Record<string, number>;
}

/** Options of {@link RunState.gather}. */
export interface GatherOptions {
  testCase: TestCase;
  /** The test file, relative to the Vitest root. */
  file: string;
  record: VerdictCaseRecord;
}

/**
 * What {@link VerdictReporter} gathers during one Vitest run: the cases by index and the
 * errors met. The run itself (store, events, reporters, summary) is recorded by the same
 * {@link RunRecorder} as evaluate(). The stored run starts with the first gathered case (a run
 * whose files all failed to load stores nothing), and so do the events: the total is then the
 * tests collected so far, and it grows (`totalFinal: false`) until every file is collected.
 */
export class RunState {
  /** Tests that failed outside verdict's metrics. */
  otherFailures = 0;
  /** Configuration error messages, each once. */
  readonly configErrors = new Set<string>();
  /** Test files that could not be loaded (a syntax or import error): `file: first line`. */
  readonly loadErrors: string[] = [];
  private readonly options: VerdictReporterOptions;
  private readonly indexer: CaseIndexer;
  private readonly expectedModules: number;
  private readonly fileRanks: Record<string, number>;
  private readonly results = new Map<number, TestResult>();
  private readonly unscoredErrors = new Map<string, number>();
  private readonly positions = new Map<TestModule, Map<string, number>>();
  /** Progress and the end report: muted when there is nothing to report. */
  private readonly builtInReporters: RunReporter[];
  private recorder: RunRecorder | null = null;
  /** Cases being stored: the run ends once they are. */
  private readonly writes = new Set<Promise<void>>();
  /** Settles once the stored run has started (or failed to). */
  private started: Promise<void> = Promise.resolve();
  /** The configuration to store with the run, once it starts; `null` once started. */
  private pendingStart: Record<string, unknown> | null = null;
  private unscored = 0;
  /** Unscored cases whose evaluation was cancelled, by message: not failures of an interrupted run. */
  private readonly cancelled = new Map<string, number>();
  private quotaExhausted = false;
  private budgetExhausted = false;
  private collectedModules = 0;
  private collectedTests = 0;
  /** The tests collected, of every shard. */
  private suiteTests = 0;
  private spent = emptySpending();

  constructor(options: RunStateOptions) {
    this.options = options.options;
    this.indexer = options.indexer;
    this.expectedModules = options.expectedModules;
    this.fileRanks = options.fileRanks ?? {};
    const display = this.options.display ?? "all";
    this.builtInReporters = defaultReporters({
      display,
      showProgress:
        this.options.showProgress ??
        (this.options.printVitestOutput === true && display !== "none"),
      stdout: this.options.stdout ?? process.stdout,
      stderr: this.options.stderr ?? process.stderr,
    });
  }

  /**
   * Opens the store: the given one, none, or the default store (a warning if it fails). A
   * CI shard with a run group writes into the run its build's shards share.
   */
  async openStore(options: {
    env: NodeJS.ProcessEnv;
    cwd: string;
    shard?: { index: number; count: number } | null;
  }): Promise<void> {
    try {
      this.recorder = await this.openRecorder({
        store: this.options.store,
        resume: this.options.resume ?? false,
        ...options,
      });
    } catch (error) {
      // A store the user named (VERDICT_STORE) that cannot be opened fails the run, with its
      // one line; the tests still report. A run that needs its store (resume, a shard of a
      // build's shared run) does not start at all: thrown, before any test (or judge call).
      const needed = whyRunNeedsStore({
        resume: this.options.resume ?? false,
        shard: options.shard ?? null,
        env: options.env,
      });
      if (!(error instanceof StoreError) || needed !== null) throw error;
      this.configErrors.add(error.message);
    }
  }

  private openRecorder(options: {
    store: Store | false | undefined;
    resume: boolean;
    env: NodeJS.ProcessEnv;
    cwd: string;
    shard?: { index: number; count: number } | null;
  }): Promise<RunRecorder> {
    return RunRecorder.open({
      ...options,
      identifier: this.options.identifier ?? null,
      reporters: [...this.builtInReporters, ...(this.options.reporters ?? [])],
      onStoreFailure: "continue",
      // Under Vitest each worker opens the judge cache itself: only the run record is lost.
      withoutStore: "results are not kept",
      warn: (message) => (this.options.stderr ?? process.stderr).write(`${message}\n`),
      deferEvents: true,
    });
  }

  /** Keeps the run's configuration: the stored run starts with the first gathered case. */
  startStoredRun(config: Record<string, unknown>): void {
    this.pendingStart = config;
  }

  private startStoredRunNow(): void {
    const config = this.pendingStart;
    if (config === null) return;
    this.pendingStart = null;
    const recorder = this.recorder;
    if (recorder === null) return;
    const started = recorder.start({ config }).then(() => undefined);
    this.started = started.catch(() => undefined);
    this.track(() => started);
  }

  // Store writes begin once the stored run has started, and the end waits for them.
  private track(write: () => Promise<void>): void {
    const tracked = this.started.then(write).catch((error: unknown) => {
      (this.options.stderr ?? process.stderr).write(
        `${redactSecretText(`Warning: ${(error as Error).message}`)}\n`,
      );
    });
    this.writes.add(tracked);
    void tracked.finally(() => this.writes.delete(tracked));
  }

  /** A test file could not be loaded: nothing of it ran. */
  moduleFailed(options: { file: string; message: string }): void {
    // Terminal colours in Vite's errors.
    const plain = stripColourCodes(options.message);
    const lines = plain.split("\n").map((line) => line.trim());
    const [first = "", second = ""] = lines.filter((line) => line !== "");
    // "Transform failed with 1 error:" says little without the error that follows.
    const summary = first.endsWith(":") && second !== "" ? `${first} ${second}` : first;
    this.loadErrors.push(`${options.file}: ${summary}`);
  }

  /** A test file was collected: its tests (this shard's) count towards the progress total. */
  moduleCollected(testModule: TestModule): void {
    this.collectedModules += 1;
    const tests = [...testModule.children.allTests()].filter(
      (testCase) => testCase.options.mode !== "skip" && testCase.options.mode !== "todo",
    );
    this.suiteTests += tests.length;
    const shard = this.options.shard;
    this.collectedTests +=
      shard === undefined
        ? tests.length
        : testsOfShard({
            tests,
            fileRank: fileRankOf({ ...shard, fileRanks: this.fileRanks }, testModule.moduleId),
            shard,
          }).length;
    this.recorder?.updateTotal(this.knownTotal());
  }

  /** Takes one asserted case: indexes it, stores it and reports it. */
  gather(options: GatherOptions): void {
    const { testCase, file, record } = options;
    const index = this.indexer.indexOf({
      file,
      testPosition: this.testPosition(testCase),
      testName: testCase.fullName,
      caseIndex: record.caseIndex,
    });
    if (record.result === null) {
      const message = record.error?.message ?? "The case was not scored.";
      if (record.outcome === "config-error") {
        this.configErrors.add(message);
      } else {
        this.addUnscored(message);
        if (record.error?.code === "ABORTED") {
          this.cancelled.set(message, (this.cancelled.get(message) ?? 0) + 1);
        }
        if (record.runStatus === "quota-exhausted") this.quotaExhausted = true;
        if (record.runStatus === "budget-exhausted") this.budgetExhausted = true;
        this.startStoredRunNow();
      }
      return;
    }
    this.startStoredRunNow();
    if (this.recorder) this.announce(this.recorder);
    const line = testCase.location?.line;
    const result: TestResult = {
      ...record.result,
      index,
      ...(file === "" ? {} : { file }),
      ...(line === undefined ? {} : { line }),
    };
    // A running total: a case gathered again (a retried test) replaces its earlier spending.
    const replaced = this.results.get(index);
    if (replaced)
      this.spent = spendingSince({ before: spendingOfResults([replaced]), now: this.spent });
    this.spent = addSpending(this.spent, spendingOfResults([result]));
    this.results.set(index, result);
    const spent = this.spent;
    const recorder = this.recorder;
    if (recorder === null) return;
    this.track(() =>
      recorder.recordCase({
        result,
        fingerprint: fingerprintCase({
          file,
          testName: testCase.fullName,
          caseIndex: record.caseIndex,
        }),
        judgeTexts: record.judgeTexts,
        spent: { judgeCalls: spent.judgeCalls, costUsd: spent.costUsd },
      }),
    );
  }

  /** Whether a case or a test failed (or errored) so far. */
  hasFailures(): boolean {
    return (
      this.otherFailures > 0 ||
      this.unscored > 0 ||
      this.configErrors.size > 0 ||
      [...this.results.values()].some((result) => result.success === false)
    );
  }

  /** A test failed with a verdict error that no assertion recorded (e.g. evaluate() called directly). */
  testFailedWithVerdictError(error: TestError): void {
    const configuration =
      error.name === "ConfigError" ||
      (error.name === "JudgeCallError" &&
        judgeCallErrorKind(error as { status?: unknown; providerCode?: unknown }) ===
          "configuration");
    if (configuration) this.configErrors.add(error.message);
    else this.addUnscored(error.message);
  }

  /** Ends the run: summary, stored run, end report; returns the result and outcome. */
  async finish(options: { interrupted: boolean }): Promise<{
    result: EvaluationResult;
    outcome: TestRunOutcome;
  }> {
    const testResults = [...this.results.values()].sort((a, b) => a.index - b.index);
    const status = decideRunStatus({
      failed: this.configErrors.size > 0 || this.loadErrors.length > 0,
      quotaExhausted: this.quotaExhausted,
      budgetExhausted: this.budgetExhausted,
      interrupted: options.interrupted,
    });
    const budget = await this.options.budget?.();
    if (options.interrupted) {
      // Cases cut short by the interruption did not fail: the run just ended before them.
      for (const [message, count] of this.cancelled) {
        this.unscored -= count;
        const left = (this.unscoredErrors.get(message) ?? 0) - count;
        if (left > 0) this.unscoredErrors.set(message, left);
        else this.unscoredErrors.delete(message);
      }
    }
    const stderr = this.options.stderr ?? process.stderr;
    for (const message of this.configErrors) stderr.write(`${redactSecretText(message)}\n`);
    for (const message of this.loadErrors) {
      stderr.write(`${redactSecretText(`Error: could not load ${message}`)}\n`);
    }
    const gathered = testResults.length + this.unscored;
    // An interrupted run's tests that never finished count too (as one case each): "3 of 8
    // unscored", not "0 of 5".
    const total = options.interrupted ? Math.max(gathered, this.collectedTests) : gathered;
    // A run whose files failed to load, or that a configuration error (no judge key, an
    // unknown model) stopped before it scored a case, is not a run: not stored.
    const nothingRan = gathered === 0 && (this.loadErrors.length > 0 || this.configErrors.size > 0);
    if (!nothingRan) this.startStoredRunNow();
    await Promise.allSettled([...this.writes]);
    const recorder = nothingRan || !this.recorder ? await this.openDetached() : this.recorder;
    if (nothingRan) await this.recorder?.close();
    // Nothing was scored because verdict is not set up or a file is broken: the error says it all.
    if (
      (this.configErrors.size > 0 || this.loadErrors.length > 0) &&
      testResults.length === 0 &&
      !recorder.announced
    ) {
      recorder.mute(this.builtInReporters);
    }
    this.announce(recorder);
    const result = await recorder.finish({
      status,
      testResults,
      total,
      spending: spendingOfResults(testResults),
      message: this.endMessage({ status, total, budget }),
      budget,
    });
    this.recorder = null;
    const outcome = decideTestRunOutcome({
      result,
      configErrors: this.configErrors.size + this.loadErrors.length,
      otherFailures: this.otherFailures,
    });
    return { result, outcome };
  }

  // The run never opened its store (the run start failed): end it without one.
  private openDetached(): Promise<RunRecorder> {
    return this.openRecorder({
      store: false,
      resume: false,
      env: this.options.env ?? process.env,
      cwd: process.cwd(),
    });
  }

  private endMessage(options: {
    status: RunStatus;
    total: number;
    budget: BudgetSummary | undefined;
  }): string | null {
    const { budget } = options;
    if (options.status === "budget-exhausted" && budget !== undefined) {
      // One line: each stopped case would only repeat what it says.
      return describeBudgetStop({
        budget,
        finished: this.results.size,
        total: options.total,
        resume: resumeTestRunHint({
          budget,
          finished: this.results.size,
          total: options.total,
          identifier: this.options.identifier,
        }),
      });
    }
    const lines = [...this.unscoredErrors.entries()].map(([message, count]) =>
      count > 1 ? `${message} (${count} cases)` : message,
    );
    const shard = this.options.shard;
    if (shard !== undefined && this.collectedTests === 0 && this.suiteTests > 0) {
      // More shards than tests: a CI matrix sized for a larger suite still passes.
      lines.push(
        `Shard ${shard.index}/${shard.count} has no test to run (the suite has ${formatPlural(this.suiteTests, "test")} over ${shard.count} shards): nothing to evaluate.`,
      );
    }
    if (this.unscored > 0) {
      lines.push(`${this.unscored} of ${options.total} test cases were left unscored.`);
    }
    if (options.status === "interrupted") {
      // A Vitest run's tests run again when it is resumed, but the judge cache answers what
      // was already asked; --resume continues the same stored run.
      const finished = `Run interrupted: ${formatPlural(this.results.size, "test case")} finished and stored.`;
      const identifier = this.options.identifier;
      const resume =
        identifier === undefined
          ? ""
          : ` Resume with: verdict test run --identifier ${shellWord(identifier)} --resume (with the same paths and flags).`;
      lines.push(
        this.cacheOn()
          ? `${finished} Running it again reuses the cached judge answers: finished cases cost nothing twice.${resume}`
          : finished,
      );
    }
    if (this.otherFailures > 0) {
      lines.push(
        `${this.otherFailures} test${this.otherFailures === 1 ? "" : "s"} failed outside verdict's metrics.`,
      );
    }
    return lines.length === 0 ? null : lines.join("\n");
  }

  private cacheOn(): boolean {
    try {
      return readTestRunSettings({ env: this.options.env ?? process.env }).cache !== false;
    } catch {
      return true;
    }
  }

  private addUnscored(message: string): void {
    this.unscored += 1;
    this.unscoredErrors.set(message, (this.unscoredErrors.get(message) ?? 0) + 1);
  }

  private testPosition(testCase: TestCase): number {
    let positions = this.positions.get(testCase.module);
    if (positions === undefined) {
      positions = new Map();
      let position = 0;
      for (const test of testCase.module.children.allTests()) positions.set(test.id, position++);
      this.positions.set(testCase.module, positions);
    }
    return positions.get(testCase.id) ?? positions.size;
  }

  // The number of tests (about one case each) collected so far: final once every file is.
  private knownTotal(): { totalTestCases: number; totalFinal: boolean } {
    return {
      totalTestCases: Math.max(this.collectedTests, this.results.size + this.unscored),
      totalFinal: this.collectedModules >= this.expectedModules,
    };
  }

  private announce(recorder: RunRecorder): void {
    if (recorder.announced) return;
    recorder.announce({
      ...this.knownTotal(),
      resumedTestCases: 0,
      // Which metrics the tests use is known only as they run.
      metricNames: [],
    });
  }
}
