import { randomUUID } from "node:crypto";
import type { TestError } from "vitest";
import type { TestCase, TestModule } from "vitest/node";
import { StoreError } from "../errors/store-error.ts";
import { createConsoleReporter } from "../report/console-report.ts";
import { createProgressReporter } from "../report/progress-reporter.ts";
import type { EvaluationResult, RunStatus, TestResult } from "../results/evaluation-result.ts";
import type { RunnerEvent, RunReporter } from "../results/runner-events.ts";
import { spendingOfResults } from "../results/spending.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import type { RunStore } from "../store/run-store.ts";
import { SqliteRunStore } from "../store/sqlite-run-store.ts";
import { type CaseIndexer, fingerprintCase } from "./case-indexer.ts";
import { decideTestRunOutcome, type TestRunOutcome } from "./decide-test-run-outcome.ts";
import type { VerdictCaseRecord } from "./verdict-case-record.ts";
import type { VerdictReporterOptions } from "./verdict-reporter.ts";

/** Options of {@link RunState}. */
export interface RunStateOptions {
  options: VerdictReporterOptions;
  indexer: CaseIndexer;
  /** Test files in the run: the progress total is known once they are all collected. */
  expectedModules: number;
}

/** Options of {@link RunState.gather}. */
export interface GatherOptions {
  testCase: TestCase;
  /** The test file, relative to the Vitest root. */
  file: string;
  record: VerdictCaseRecord;
}

/**
 * What {@link VerdictReporter} gathers during one Vitest run: the stored run, the cases by
 * index, the errors met, and the runner events for verdict's reporters.
 */
export class RunState {
  /** Tests that failed outside verdict's metrics. */
  otherFailures = 0;
  /** Configuration error messages, each once. */
  readonly configErrors = new Set<string>();
  private readonly options: VerdictReporterOptions;
  private readonly indexer: CaseIndexer;
  private readonly expectedModules: number;
  private readonly runId = randomUUID();
  private readonly startedAt = Date.now();
  private readonly results = new Map<number, TestResult>();
  private readonly unscoredErrors = new Map<string, number>();
  private readonly positions = new Map<TestModule, Map<string, number>>();
  /** Progress and the end report: left out when there is nothing to report. */
  private readonly builtInReporters: RunReporter[];
  private readonly reporters: RunReporter[];
  private readonly failedReporters = new Set<number>();
  private store: RunStore | null = null;
  private ownsStore = false;
  private unscored = 0;
  private quotaExhausted = false;
  private collectedModules = 0;
  private collectedTests = 0;
  private started = false;
  /** Progress and end report stay silent (the run met only configuration errors). */
  private quiet = false;
  private pending: RunnerEvent[] = [];
  private spentCalls = 0;
  private spentCost: number | null = 0;

  constructor(options: RunStateOptions) {
    this.options = options.options;
    this.indexer = options.indexer;
    this.expectedModules = options.expectedModules;
    const display = this.options.display ?? "all";
    const stdout = this.options.stdout ?? process.stdout;
    const stderr = this.options.stderr ?? process.stderr;
    const showProgress =
      this.options.showProgress ?? (this.options.printVitestOutput === true && display !== "none");
    this.builtInReporters = [
      ...(showProgress ? [createProgressReporter({ stream: stderr })] : []),
      ...(display === "none" ? [] : [createConsoleReporter({ display, stream: stdout })]),
    ];
    this.reporters = [...this.builtInReporters, ...(this.options.reporters ?? [])];
  }

  /** Opens the store: the given one, none, or the default SQLite store (a warning if it fails). */
  openStore(options: { env: NodeJS.ProcessEnv; cwd: string }): void {
    const store = this.options.store;
    if (store === false) return;
    if (store) {
      this.store = store;
      return;
    }
    try {
      this.store = SqliteRunStore.open({ env: options.env, cwd: options.cwd });
      this.ownsStore = true;
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      this.warn(`${error.message} This run goes on without the store: results are not kept.`);
    }
  }

  /** Records the run's start in the store. */
  startStoredRun(config: Record<string, unknown>): void {
    this.useStore((store) =>
      store.startRun({
        id: this.runId,
        identifier: this.options.identifier ?? null,
        status: "running",
        startedAt: new Date(this.startedAt).toISOString(),
        endedAt: null,
        config,
        summary: null,
      }),
    );
  }

  /** A test file was collected: its tests count towards the progress total. */
  moduleCollected(testModule: TestModule): void {
    this.collectedModules += 1;
    for (const testCase of testModule.children.allTests()) {
      if (testCase.options.mode !== "skip" && testCase.options.mode !== "todo") {
        this.collectedTests += 1;
      }
    }
    this.startWhenReady();
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
        if (record.runStatus === "quota-exhausted") this.quotaExhausted = true;
      }
      return;
    }
    const result: TestResult = { ...record.result, index };
    this.results.set(index, result);
    const spending = spendingOfResults([result]);
    this.spentCalls += spending.judgeCalls;
    this.spentCost =
      this.spentCost === null || spending.costUsd === null
        ? null
        : this.spentCost + spending.costUsd;
    const fingerprint = fingerprintCase({
      file,
      testName: testCase.fullName,
      caseIndex: record.caseIndex,
    });
    this.useStore((store) => store.saveTestResult(this.runId, { fingerprint, result }));
    this.emit({
      type: "test-case-end",
      runId: this.runId,
      result,
      fingerprint,
      finished: this.results.size,
      judgeCalls: this.spentCalls,
      costUsd: this.spentCost,
    });
    this.startWhenReady();
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
    if (error.name === "ConfigError") this.configErrors.add(error.message);
    else this.addUnscored(error.message);
  }

  /** Ends the run: summary, stored run, end report; returns the result and outcome. */
  finish(options: { interrupted: boolean }): {
    result: EvaluationResult;
    outcome: TestRunOutcome;
  } {
    const testResults = [...this.results.values()].sort((a, b) => a.index - b.index);
    const status: RunStatus = options.interrupted
      ? "interrupted"
      : this.quotaExhausted
        ? "quota-exhausted"
        : this.configErrors.size > 0
          ? "failed"
          : "completed";
    const summary = summarizeRun({
      status,
      testResults,
      total: testResults.length + this.unscored,
      spending: spendingOfResults(testResults),
      durationMs: Date.now() - this.startedAt,
    });
    const result: EvaluationResult = {
      testRunId: this.runId,
      identifier: this.options.identifier ?? null,
      testResults,
      summary,
    };
    this.useStore((store) =>
      store.finishRun({ runId: this.runId, status, endedAt: new Date().toISOString(), summary }),
    );
    if (this.ownsStore) this.store?.close();
    this.store = null;

    const outcome = decideTestRunOutcome({
      result,
      configErrors: this.configErrors.size,
      otherFailures: this.otherFailures,
    });
    const stderr = this.options.stderr ?? process.stderr;
    for (const message of this.configErrors) stderr.write(`${message}\n`);
    // Nothing was scored because verdict is not set up: the error says it all.
    if (this.configErrors.size > 0 && testResults.length === 0 && !this.started) {
      this.quiet = true;
    }
    this.start();
    this.emit({ type: "run-end", runId: this.runId, result, message: this.endMessage(result) });
    return { result, outcome };
  }

  private endMessage(result: EvaluationResult): string | null {
    const lines = [...this.unscoredErrors.entries()].map(([message, count]) =>
      count > 1 ? `${message} (${count} cases)` : message,
    );
    if (this.unscored > 0) {
      lines.push(
        `${this.unscored} of ${result.summary.testCases.total} test cases were left unscored.`,
      );
    }
    if (result.summary.status === "interrupted") lines.push("The run was interrupted.");
    if (this.otherFailures > 0) {
      lines.push(
        `${this.otherFailures} test${this.otherFailures === 1 ? "" : "s"} failed outside verdict's metrics.`,
      );
    }
    return lines.length === 0 ? null : lines.join("\n");
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

  // The total is the number of tests (about one case each), known once every file is collected.
  private startWhenReady(): void {
    if (this.collectedModules >= this.expectedModules && this.results.size > 0) this.start();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    const pending = this.pending;
    this.pending = [];
    this.emit({
      type: "run-start",
      runId: this.runId,
      identifier: this.options.identifier ?? null,
      totalTestCases: Math.max(this.collectedTests, this.results.size),
      resumedTestCases: 0,
      // Which metrics the tests use is known only as they run.
      metricNames: [],
      startedAt: new Date(this.startedAt).toISOString(),
    });
    for (const event of pending) this.emit(event);
  }

  private emit(event: RunnerEvent): void {
    if (!this.started) {
      this.pending.push(event);
      return;
    }
    this.reporters.forEach((reporter, position) => {
      if (this.quiet && this.builtInReporters.includes(reporter)) return;
      try {
        reporter.onEvent(event);
      } catch (error) {
        // A failing reporter must not cost the run its results: reported once, then skipped.
        if (this.failedReporters.has(position)) return;
        this.failedReporters.add(position);
        this.warn(`reporter #${position + 1} failed and is skipped: ${(error as Error).message}`);
      }
    });
  }

  private useStore(action: (store: RunStore) => void): void {
    if (!this.store) return;
    try {
      action(this.store);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      this.warn(`${error.message} The rest of the run is not stored.`);
      if (this.ownsStore) this.store.close();
      this.store = null;
    }
  }

  private warn(message: string): void {
    (this.options.stderr ?? process.stderr).write(`Warning: ${message}\n`);
  }
}
