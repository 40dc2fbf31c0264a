import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { ConfigError } from "../errors/config-error.ts";
import { StoreError } from "../errors/store-error.ts";
import type {
  EvaluationResult,
  JudgeSpending,
  RunStatus,
  TestResult,
} from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type {
  JudgeBatchEvent,
  RunnerEvent,
  RunReporter,
  RunStartEvent,
} from "../results/runner-events.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import { redactSecretText, refreshEnvironmentSecrets } from "../secrets/redact-secrets.ts";
import { HEARTBEAT_INTERVAL_MS } from "../store/run-liveness.ts";
import type { JudgeBatchLog, JudgeCache, RunOwner, RunStore } from "../store/run-store.ts";
import { SqliteRunStore } from "../store/sqlite-run-store.ts";

/** The `store` option: the default `.verdict/` SQLite store, a store of your own, or `false`. */
export type RunStoreOption = RunStore | false | undefined;

/** Options of {@link RunRecorder.open}. */
export interface RunRecorderOptions {
  store: RunStoreOption;
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
   * What a store that breaks during the run does: `"stop"` throws from the call that met it
   * (evaluate() then fails the run, keeping what was stored); `"continue"` warns once and goes
   * on without the store (a Vitest run, whose tests must still report).
   */
  onStoreFailure: "stop" | "continue";
  /** Whether the run resumes an earlier one (which needs a store). @default false */
  resume?: boolean;
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

// A heartbeat also rides on stored cases, but not more often than this: one extra write a
// second at most, whatever the pace of the run.
const CASE_HEARTBEAT_MIN_MS = 1000;

/** What {@link RunRecorder.finish} needs to end the run. */
export interface FinishRunOptions {
  status: RunStatus;
  testResults: readonly TestResult[];
  /** Cases in the run, unscored ones included. */
  total: number;
  spending: JudgeSpending;
  /** What to tell the user when the run did not complete, e.g. how to resume. */
  message: string | null;
}

/**
 * Records one run, for evaluate() and the Vitest reporter alike: opens the store (the given
 * one, none, or the default SQLite store, which a run goes on without, with a warning, when it
 * cannot be opened), starts or reopens the stored run, saves each finished case at once, sends
 * every event to the reporters (a reporter that throws is reported once and skipped, never
 * costing the run its results), and ends the run with its summary.
 */
export class RunRecorder {
  /** The judge cache of the store, when it has one. */
  readonly judgeCache: JudgeCache | null;
  /** The judge batch log of the store, when it has one. */
  readonly judgeBatches: JudgeBatchLog | null;
  /** A warning met while opening the store (shown again at the end of the run). */
  readonly openWarning: string | null;
  private runIdValue: string = randomUUID();
  private store: RunStore | null;
  private readonly owned: boolean;
  private readonly options: RunRecorderOptions;
  private readonly reporters: Array<{ reporter: RunReporter; name: string }>;
  private readonly failed = new Set<string>();
  private readonly startedAt: number;
  private readonly reused = new Set<number>();
  private pending: RunnerEvent[] | null;
  private finished = 0;
  /** The total of a run that learns its size as it goes, for the next `test-case-end` events. */
  private growingTotal: { totalTestCases: number; totalFinal: boolean } | null = null;
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  private lastHeartbeat = 0;
  private heartbeatFailed = false;

  private constructor(
    options: RunRecorderOptions,
    opened: { store: RunStore | null; owned: boolean; warning: string | null },
  ) {
    this.options = options;
    this.store = opened.store;
    this.owned = opened.owned;
    this.openWarning = opened.warning;
    this.judgeCache = (opened.store as { judgeCache?: JudgeCache } | null)?.judgeCache ?? null;
    this.judgeBatches =
      (opened.store as { judgeBatches?: JudgeBatchLog } | null)?.judgeBatches ?? null;
    this.reporters = options.reporters.map((reporter, position) => ({
      reporter,
      name: `reporter #${position + 1}`,
    }));
    this.pending = options.deferEvents ? [] : null;
    this.startedAt = options.startedAt ?? Date.now();
  }

  /** Opens the run's store; nothing is stored until {@link start}. */
  static open(options: RunRecorderOptions): RunRecorder {
    const warn = (message: string) =>
      (options.warn ?? ((text: string) => console.warn(text)))(redactSecretText(message));
    if (options.store === false) {
      if (options.resume) {
        throw new ConfigError(
          "resume needs a store to read the earlier run from: remove store: false.",
        );
      }
      return new RunRecorder(options, { store: null, owned: false, warning: null });
    }
    if (options.store) {
      return new RunRecorder(options, { store: options.store, owned: false, warning: null });
    }
    try {
      const store = SqliteRunStore.open({
        env: options.env,
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
      return new RunRecorder(options, { store, owned: true, warning: null });
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      const loses = options.withoutStore ?? "no judge cache, and results are not kept";
      const warning = `Warning: ${error.message} This run goes on without the store: ${loses}.`;
      warn(warning);
      return new RunRecorder(options, { store: null, owned: false, warning });
    }
  }

  get runId(): string {
    return this.runIdValue;
  }

  /**
   * Starts the stored run. With `resume`, the latest run of the identifier is reopened and
   * its finished results whose fingerprint still matches are returned, by index, for reuse.
   */
  start(options: {
    config: Record<string, unknown>;
    fingerprints?: readonly string[];
  }): Map<number, TestResult> {
    const reused = new Map<number, TestResult>();
    // Secret variables set just before the run are masked in all it writes.
    refreshEnvironmentSecrets();
    const { store } = this;
    const identifier = this.options.identifier;
    try {
      const existing = this.options.resume && store && identifier ? store.getRun(identifier) : null;
      if (existing && store) {
        this.runIdValue = existing.id;
        for (const stored of store.getTestResults(existing.id)) {
          if (options.fingerprints?.[stored.result.index] === stored.fingerprint) {
            reused.set(stored.result.index, stored.result);
            this.reused.add(stored.result.index);
          }
        }
        store.reopenRun(existing.id);
        this.useStore((opened) => opened.heartbeatRun({ runId: existing.id, owner: this.owner() }));
      } else {
        this.useStore((opened) =>
          opened.startRun({
            id: this.runIdValue,
            identifier,
            status: "running",
            startedAt: new Date(this.startedAt).toISOString(),
            endedAt: null,
            config: options.config,
            summary: null,
            owner: this.owner(),
          }),
        );
      }
      this.startHeartbeat();
    } catch (error) {
      this.close();
      throw error;
    }
    this.finished = reused.size;
    return reused;
  }

  /** Announces the run to the reporters; with `deferEvents`, the events held so far follow. */
  announce(event: Omit<RunStartEvent, "type" | "runId" | "identifier" | "startedAt">): void {
    const held = this.pending ?? [];
    this.pending = null;
    if (event.totalFinal === false) {
      this.growingTotal = { totalTestCases: event.totalTestCases, totalFinal: false };
    }
    this.emit({
      type: "run-start",
      runId: this.runIdValue,
      identifier: this.options.identifier,
      startedAt: new Date(this.startedAt).toISOString(),
      ...event,
    });
    for (const heldEvent of held) this.emit(heldEvent);
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
    return this.pending === null;
  }

  /** One metric of one trial of a case finished. */
  recordMetric(options: { index: number; trial: number; metric: MetricData }): void {
    this.emit({
      type: "metric-end",
      runId: this.runIdValue,
      testCaseIndex: options.index,
      trial: options.trial,
      metric: options.metric,
    });
  }

  /** A case finished: stored at once (unless it was reused from the resumed run), then reported. */
  recordCase(options: {
    result: TestResult;
    fingerprint: string;
    /** Judge spending of the run so far. */
    spent: { judgeCalls: number; costUsd: number | null };
  }): void {
    const { result, fingerprint } = options;
    if (!this.reused.has(result.index)) {
      this.useStore((store) => store.saveTestResult(this.runIdValue, { fingerprint, result }));
      if (Date.now() - this.lastHeartbeat >= CASE_HEARTBEAT_MIN_MS) this.beat();
    }
    this.finished += 1;
    this.emit({
      type: "test-case-end",
      runId: this.runIdValue,
      result,
      fingerprint,
      finished: this.finished,
      judgeCalls: options.spent.judgeCalls,
      costUsd: options.spent.costUsd,
      ...(this.growingTotal ?? {}),
    });
  }

  /** A provider batch of the run's judge requests changed. */
  recordBatch(progress: Omit<JudgeBatchEvent, "type" | "runId">): void {
    this.emit({ type: "judge-batch", runId: this.runIdValue, ...progress });
  }

  /** Stops sending events to these reporters (e.g. built-in ones with nothing to report). */
  mute(reporters: readonly RunReporter[]): void {
    for (const reporter of reporters) {
      const position = this.reporters.findIndex((entry) => entry.reporter === reporter);
      if (position >= 0) this.reporters.splice(position, 1);
    }
  }

  /** Ends the run: its summary, the stored end, the `run-end` event; closes a store it opened. */
  finish(options: FinishRunOptions): EvaluationResult {
    const summary = summarizeRun({
      status: options.status,
      testResults: options.testResults,
      total: options.total,
      spending: options.spending,
      durationMs: Date.now() - this.startedAt,
    });
    const result: EvaluationResult = {
      testRunId: this.runIdValue,
      identifier: this.options.identifier,
      testResults: [...options.testResults],
      summary,
    };
    this.stopHeartbeat();
    try {
      this.store?.finishRun({
        runId: this.runIdValue,
        status: options.status,
        endedAt: new Date().toISOString(),
        summary,
      });
    } catch (error) {
      this.warn(`Warning: the run's end could not be stored: ${(error as Error).message}`);
    }
    if (!this.announced)
      this.announce({ totalTestCases: options.total, resumedTestCases: 0, metricNames: [] });
    this.emit({ type: "run-end", runId: this.runIdValue, result, message: options.message });
    this.close();
    return result;
  }

  /** Closes the store if the recorder opened it. Safe to call more than once. */
  close(): void {
    this.stopHeartbeat();
    if (this.owned) this.store?.close();
    this.store = null;
  }

  private owner(): RunOwner {
    this.lastHeartbeat = Date.now();
    return {
      pid: process.pid,
      hostname: hostname(),
      heartbeatAt: new Date(this.lastHeartbeat).toISOString(),
    };
  }

  // Unref'd: an open run's heartbeat never keeps the process alive on its own.
  private startHeartbeat(): void {
    if (!this.store || this.heartbeatTimer !== null) return;
    const intervalMs = this.options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS;
    this.heartbeatTimer = setInterval(() => this.beat(), intervalMs);
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  // A missed heartbeat costs nothing but a stale look: it never stops the run.
  private beat(): void {
    const store = this.store;
    if (!store) return;
    try {
      store.heartbeatRun({ runId: this.runIdValue, owner: this.owner() });
    } catch (error) {
      if (this.heartbeatFailed) return;
      this.heartbeatFailed = true;
      this.warn(
        `Warning: the run's heartbeat could not be stored (later failures are not repeated): ${(error as Error).message}`,
      );
    }
  }

  private emit(event: RunnerEvent): void {
    if (this.pending !== null) {
      this.pending.push(event);
      return;
    }
    for (const { reporter, name } of this.reporters) {
      this.notify(name, () => reporter.onEvent(event));
    }
    const { onProgress } = this.options;
    if (onProgress) this.notify("onProgress", () => onProgress(event));
  }

  // A failing reporter must not cost the run its results: its error is reported once, and it
  // still gets the later events (one bad event must not keep it from writing its file).
  private notify(name: string, listener: () => void): void {
    try {
      listener();
    } catch (error) {
      if (this.failed.has(name)) return;
      this.failed.add(name);
      this.warn(
        `Warning: ${name} failed (later failures are not repeated): ${(error as Error).message}`,
      );
    }
  }

  private useStore(action: (store: RunStore) => void): void {
    if (!this.store) return;
    if (this.options.onStoreFailure === "stop") {
      action(this.store);
      return;
    }
    try {
      action(this.store);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      this.warn(`Warning: ${error.message} The rest of the run is not stored.`);
      this.close();
    }
  }

  /** Warns (console, secrets masked), as it warns of a failing reporter or store. */
  warn(message: string): void {
    // Warnings quote errors (a reporter's, the store's): mask secrets as every writer does.
    (this.options.warn ?? ((text: string) => console.warn(text)))(redactSecretText(message));
  }
}
