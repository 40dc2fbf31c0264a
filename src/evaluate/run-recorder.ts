import { ConfigError } from "../errors/config-error.ts";
import type {
  BudgetSummary,
  EvaluationResult,
  EvaluationSummary,
  JudgeSpending,
  RunStatus,
  TestResult,
} from "../results/evaluation-result.ts";
import type { JudgeText } from "../results/judge-text.ts";
import type { MetricData } from "../results/metric-data.ts";
import type {
  JudgeBatchEvent,
  RunnerEvent,
  RunReporter,
  RunStartEvent,
} from "../results/runner-events.ts";
import { type RunTally, summarizeRun } from "../results/summarize-run.ts";
import { redactSecretText, refreshEnvironmentSecrets } from "../secrets/redact-secrets.ts";
import { openStore, type StoreOption, whyRunNeedsStore } from "../store/open-store.ts";
import { HEARTBEAT_INTERVAL_MS } from "../store/run-liveness.ts";
import type { JudgeBatchLog, JudgeCache, JudgeLeases, RunShard } from "../store/run-store.ts";
import { RunEvents } from "./run-events.ts";
import { RunHeartbeat } from "./run-heartbeat.ts";
import { RunStoreWriter } from "./run-store-writer.ts";

/** Options of {@link RunRecorder.open}. */
export interface RunRecorderOptions {
  store: StoreOption;
  /** Where the default store is found (`VERDICT_HOME`). */
  env: NodeJS.ProcessEnv;
  /** @default process.cwd() */
  cwd?: string;
  identifier: string | null;
  /** Every consumer of the run's events, in order. */
  reporters: readonly RunReporter[];
  /** Called with every event after the reporters. */
  onProgress?: ((event: RunnerEvent) => void) | undefined;
  /**
   * What a store that breaks during the run does: `"stop"` fails the call that met it
   * (evaluate() then fails the run, keeping what was stored); `"continue"` warns once and goes
   * on without the store (a Vitest run, whose tests must still report).
   */
  onStoreFailure: "stop" | "continue";
  /** Whether the run resumes an earlier one (which needs a store). @default false */
  resume?: boolean;
  /**
   * The CI shard this process runs. With a run group (`VERDICT_RUN_GROUP`, or the CI build's
   * id: see `runGroupOf`), every shard of the build writes into one stored run; without one,
   * the shard stores a run of its own.
   */
  shard?: RunShard | null | undefined;
  /** Where warnings go. @default console.warn */
  warn?: (message: string) => void;
  /** Events wait until {@link RunRecorder.announce} (a run whose size is not known yet). @default false */
  deferEvents?: boolean;
  /** What the run loses without its store, said when the default store cannot be opened. */
  withoutStore?: string;
  /** When the run began (`Date.now()`), for its stored start and its duration. @default now */
  startedAt?: number;
  /**
   * How often the open run's heartbeat is written, so that `verdict view` and `compare` can
   * tell a run whose process died from one in progress. Also written with stored cases (at
   * most once a second).
   * @default 15000
   */
  heartbeatIntervalMs?: number;
}

/** What {@link RunRecorder.finish} needs to end the run. */
export interface FinishRunOptions {
  status: RunStatus;
  /** The results the returned result keeps (all of them, unless the run keeps none). */
  testResults: readonly TestResult[];
  /** The run's totals, kept as its cases finished; else summed up from `testResults`. */
  tally?: RunTally;
  /**
   * The cases the `run-end` event carries, when not `testResults`: for a run that keeps none,
   * those reused from the resumed run (the others came with `test-case-end` events).
   */
  reportedResults?: readonly TestResult[];
  /** Cases in the run, unscored ones included. */
  total: number;
  spending: JudgeSpending;
  /** What to tell the user when the run did not complete, e.g. how to resume. */
  message: string | null;
  /** The run's budget and what the run spent of it, when it had one. */
  budget?: BudgetSummary | undefined;
}

/**
 * Records one run, for evaluate() and the Vitest reporter alike, through three parts with one
 * job each: the store writer (start or resume, each finished case stored at once, the end;
 * see {@link RunStoreWriter}), the heartbeat ({@link RunHeartbeat}) and the events
 * ({@link RunEvents}: a reporter that throws is reported once and skipped, never costing the
 * run its results). The store is opened by `openStore`, with its one failure policy.
 */
export class RunRecorder {
  /** The judge cache of the store, when it has one. */
  readonly judgeCache: JudgeCache | null;
  /** The judge batch log of the store, when it has one. */
  readonly judgeBatches: JudgeBatchLog | null;
  /** The judge cache leases of the store, when it has them. */
  readonly leases: JudgeLeases | null;
  /** A warning met while opening the store (shown again at the end of the run). */
  readonly openWarning: string | null;
  private readonly options: RunRecorderOptions;
  private readonly writer: RunStoreWriter;
  private readonly heartbeat: RunHeartbeat;
  private readonly events: RunEvents;
  private readonly startedAt: number;
  private readonly reused = new Set<number>();
  private finished = 0;
  /** The total of a run that learns its size as it goes, for the next `test-case-end` events. */
  private growingTotal: { totalTestCases: number; totalFinal: boolean } | null = null;

  private constructor(
    options: RunRecorderOptions,
    writer: RunStoreWriter,
    opened: {
      judgeCache: JudgeCache | null;
      judgeBatches: JudgeBatchLog | null;
      leases: JudgeLeases | null;
      warning: string | null;
    },
  ) {
    this.options = options;
    this.writer = writer;
    this.judgeCache = opened.judgeCache;
    this.judgeBatches = opened.judgeBatches;
    this.leases = opened.leases;
    this.openWarning = opened.warning;
    this.startedAt = options.startedAt ?? Date.now();
    const warn = (message: string) => this.warn(message);
    this.events = new RunEvents({
      reporters: options.reporters,
      onProgress: options.onProgress,
      deferEvents: options.deferEvents ?? false,
      warn,
    });
    this.heartbeat = new RunHeartbeat({
      write: (owner) => this.writer.heartbeat(owner),
      warn,
      intervalMs: options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS,
    });
  }

  /**
   * Opens the run's store (see `openStore`: a store the user named must open, the default
   * store falls back with a warning, unless the run needs it: a resumed run, a shard of a
   * build's shared run); nothing is stored until {@link start}.
   */
  static async open(options: RunRecorderOptions): Promise<RunRecorder> {
    if (options.store === false && options.resume) {
      throw new ConfigError(
        "resume needs a store to read the earlier run from: remove store: false.",
      );
    }
    const opened = await openStore({
      store: options.store,
      env: options.env,
      cwd: options.cwd,
      ...(options.withoutStore === undefined ? {} : { withoutStore: options.withoutStore }),
      needed: whyRunNeedsStore({
        resume: options.resume ?? false,
        shard: options.shard ?? null,
        env: options.env,
      }),
    });
    const warn = options.warn ?? ((text: string) => console.warn(text));
    if (opened.warning !== null) warn(redactSecretText(opened.warning));
    const { store } = opened;
    const writer = new RunStoreWriter({
      store,
      owned: opened.owned,
      identifier: options.identifier,
      startedAt: options.startedAt ?? Date.now(),
      onStoreFailure: options.onStoreFailure,
      resume: options.resume ?? false,
      shard: options.shard ?? null,
      env: options.env,
      warn: (message) => warn(redactSecretText(message)),
    });
    return new RunRecorder(options, writer, {
      judgeCache: store?.judgeCache ?? null,
      judgeBatches: store?.judgeBatches ?? null,
      leases: store?.leases ?? null,
      warning: opened.warning,
    });
  }

  get runId(): string {
    return this.writer.runId;
  }

  /** The summary the resumed run ended with, once started; `null` for a new run. */
  get resumedSummary(): EvaluationSummary | null {
    return this.writer.resumedSummary;
  }

  /**
   * Starts the stored run. With `resume`, the latest run of the identifier is reopened and
   * its finished results whose fingerprint still matches are returned, by index, for reuse
   * (only those of `indices`, the cases this process runs, when given). A shard with a run
   * group starts (or, resuming, reopens) its part of the build's shared run.
   */
  async start(options: {
    config: Record<string, unknown>;
    fingerprintOf?: (index: number) => string;
    indices?: ReadonlySet<number>;
  }): Promise<Map<number, TestResult>> {
    // Secret variables set just before the run are masked in all it writes.
    refreshEnvironmentSecrets();
    let reused: Map<number, TestResult>;
    try {
      reused = await this.writer.start({ ...options, owner: () => this.heartbeat.owner() });
    } catch (error) {
      await this.close();
      throw error;
    }
    for (const index of reused.keys()) this.reused.add(index);
    if (this.writer.storing) this.heartbeat.start();
    this.finished = reused.size;
    return reused;
  }

  /** Announces the run to the reporters; with `deferEvents`, the events held so far follow. */
  announce(event: Omit<RunStartEvent, "type" | "runId" | "identifier" | "startedAt">): void {
    if (event.totalFinal === false) {
      this.growingTotal = { totalTestCases: event.totalTestCases, totalFinal: false };
    }
    this.events.announce({
      type: "run-start",
      runId: this.runId,
      identifier: this.options.identifier,
      startedAt: new Date(this.startedAt).toISOString(),
      ...event,
    });
  }

  /**
   * The run's total changed (a run announced with `totalFinal: false`): later `test-case-end`
   * events carry it.
   */
  updateTotal(total: { totalTestCases: number; totalFinal: boolean }): void {
    if (this.growingTotal !== null) this.growingTotal = { ...total };
  }

  /** Whether {@link announce} has been called. */
  get announced(): boolean {
    return this.events.announced;
  }

  /** One metric of one trial of a case finished. */
  recordMetric(options: { index: number; trial: number; metric: MetricData }): void {
    this.events.emit({
      type: "metric-end",
      runId: this.runId,
      testCaseIndex: options.index,
      trial: options.trial,
      metric: options.metric,
    });
  }

  /**
   * A case finished: stored (unless it was reused from the resumed run), then reported.
   * Resolves once it is stored; under `onStoreFailure: "stop"`, rejects when it cannot be.
   */
  async recordCase(options: {
    result: TestResult;
    fingerprint: string;
    /** The texts of the judge prompts and answers its calls name by hash, each once. */
    judgeTexts?: JudgeText[] | undefined;
    /** Judge spending of the run so far. */
    spent: { judgeCalls: number; costUsd: number | null };
  }): Promise<void> {
    const { result, fingerprint } = options;
    const judgeTexts = options.judgeTexts ?? [];
    if (!this.reused.has(result.index)) {
      await this.writer.saveCase({
        result,
        fingerprint,
        ...(judgeTexts.length > 0 ? { judgeTexts } : {}),
      });
      this.heartbeat.caseStored();
    }
    this.finished += 1;
    this.events.emit({
      type: "test-case-end",
      runId: this.runId,
      result,
      fingerprint,
      ...(judgeTexts.length > 0 ? { judgeTexts } : {}),
      finished: this.finished,
      judgeCalls: options.spent.judgeCalls,
      costUsd: options.spent.costUsd,
      ...(this.growingTotal ?? {}),
    });
  }

  /** A provider batch of the run's judge requests changed. */
  recordBatch(progress: Omit<JudgeBatchEvent, "type" | "runId">): void {
    this.events.emit({ type: "judge-batch", runId: this.runId, ...progress });
  }

  /** Stops sending events to these reporters (e.g. built-in ones with nothing to report). */
  mute(reporters: readonly RunReporter[]): void {
    this.events.mute(reporters);
  }

  /** Ends the run: its summary, the stored end, the `run-end` event; closes a store it opened. */
  async finish(options: FinishRunOptions): Promise<EvaluationResult> {
    const totals = {
      status: options.status,
      total: options.total,
      spending: options.spending,
      durationMs: Date.now() - this.startedAt,
    };
    const summarized =
      options.tally === undefined
        ? summarizeRun({ ...totals, testResults: options.testResults })
        : options.tally.summarize(totals);
    const summary =
      options.budget === undefined ? summarized : { ...summarized, budget: options.budget };
    const result: EvaluationResult = {
      testRunId: this.runId,
      identifier: this.options.identifier,
      testResults: [...options.testResults],
      summary,
    };
    await this.heartbeat.stop();
    await this.writer.finish({ status: options.status, summary });
    if (!this.announced)
      this.announce({ totalTestCases: options.total, resumedTestCases: 0, metricNames: [] });
    const reported =
      options.reportedResults === undefined
        ? result
        : { ...result, testResults: [...options.reportedResults] };
    this.events.emit({
      type: "run-end",
      runId: this.runId,
      result: reported,
      message: options.message,
    });
    await this.close();
    return result;
  }

  /** Closes the store if the recorder opened it. Safe to call more than once. */
  async close(): Promise<void> {
    await this.heartbeat.stop();
    await this.writer.close();
  }

  /** Warns (console, secrets masked), as it warns of a failing reporter or store. */
  warn(message: string): void {
    // Warnings quote errors (a reporter's, the store's): mask secrets as every writer does.
    (this.options.warn ?? ((text: string) => console.warn(text)))(redactSecretText(message));
  }
}
