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
import { openRunStore, storeUrlOf } from "../store/open-run-store.ts";
import { HEARTBEAT_INTERVAL_MS } from "../store/run-liveness.ts";
import { formatShard, runGroupOf, shardedRunId, summarizeShardedRun } from "../store/run-shards.ts";
import type {
  JudgeBatchLog,
  JudgeCache,
  RunOwner,
  RunShard,
  RunStore,
} from "../store/run-store.ts";

/**
 * The `store` option: the default store (`VERDICT_STORE`, else the `.verdict/` SQLite store), a
 * `postgres://` URL, a store of your own, or `false`.
 */
export type RunStoreOption = RunStore | string | false | undefined;

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
  /** The shard's part of a run shared by a build's shards, or `null` for a run of its own. */
  private part: { shard: RunShard; group: string } | null = null;

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
    if (options.store && typeof options.store === "object") {
      return new RunRecorder(options, { store: options.store, owned: false, warning: null });
    }
    // A store the user named (a URL here or in VERDICT_STORE) that cannot be opened stops a
    // run that stops on store failures: going on without it would silently lose what the
    // team shares. The default SQLite store is only ever warned about.
    const named = storeUrlOf(options.store || undefined, options.env) !== null;
    try {
      const store = openRunStore({
        url: options.store || undefined,
        env: options.env,
        cwd: options.cwd,
      });
      return new RunRecorder(options, { store, owned: true, warning: null });
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      if (named && options.onStoreFailure === "stop") throw error;
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
   * its finished results whose fingerprint still matches are returned, by index, for reuse
   * (only those of `indices`, the cases this process runs, when given). A shard with a run
   * group starts (or, resuming, reopens) its part of the build's shared run.
   */
  start(options: {
    config: Record<string, unknown>;
    fingerprints?: readonly string[];
    indices?: ReadonlySet<number>;
  }): Map<number, TestResult> {
    const reused = new Map<number, TestResult>();
    // Secret variables set just before the run are masked in all it writes.
    refreshEnvironmentSecrets();
    const { store } = this;
    const identifier = this.options.identifier;
    const shard = this.options.shard ?? null;
    const group = shard === null ? null : runGroupOf(this.options.env);
    if (shard !== null && this.options.resume && group === null) {
      this.close();
      throw new ConfigError(
        `resuming shard ${formatShard(shard)} needs the run its shards share: set VERDICT_RUN_GROUP ` +
          "to the same value for every shard of the build (CI sets it for you on GitHub Actions, " +
          "GitLab CI, Buildkite and CircleCI).",
      );
    }
    if (shard !== null && group !== null) {
      this.part = { shard, group };
      this.runIdValue = shardedRunId({ identifier, group, count: shard.count });
    }
    const reuse = (runId: string) => {
      for (const stored of store?.getTestResults(runId) ?? []) {
        const index = stored.result.index;
        if (options.indices !== undefined && !options.indices.has(index)) continue;
        if (options.fingerprints?.[index] === stored.fingerprint) {
          reused.set(index, stored.result);
          this.reused.add(index);
        }
      }
    };
    try {
      if (this.part !== null) {
        this.startPart({ store, config: options.config, reuse });
      } else {
        const existing =
          this.options.resume && store && identifier ? store.getRun(identifier) : null;
        if (existing && store) {
          this.runIdValue = existing.id;
          reuse(existing.id);
          store.reopenRun(existing.id);
          this.useStore((opened) =>
            opened.heartbeatRun({ runId: existing.id, owner: this.owner() }),
          );
        } else {
          this.useStore((opened) =>
            opened.startRun({ ...this.header(options.config), owner: this.owner() }),
          );
        }
      }
      this.startHeartbeat();
    } catch (error) {
      this.close();
      throw error;
    }
    this.finished = reused.size;
    return reused;
  }

  private header(config: Record<string, unknown>) {
    return {
      id: this.runIdValue,
      identifier: this.options.identifier,
      status: "running" as const,
      startedAt: new Date(this.startedAt).toISOString(),
      endedAt: null,
      config,
      summary: null,
    };
  }

  /** Starts this shard's part of the build's run; resuming, reopens the part it left. */
  private startPart(options: {
    store: RunStore | null;
    config: Record<string, unknown>;
    reuse: (runId: string) => void;
  }): void {
    const { store } = options;
    const part = this.part;
    if (part === null) return;
    const runId = this.runIdValue;
    const existing = this.options.resume && store ? store.getRun(runId) : null;
    const left = existing?.shards?.parts.some((stored) => stored.shard === part.shard.index);
    if (store && left) {
      options.reuse(runId);
      store.reopenRun(runId, { shard: part.shard.index });
      this.useStore((opened) =>
        opened.heartbeatRun({ runId, owner: this.owner(), shard: part.shard.index }),
      );
      return;
    }
    this.useStore((opened) =>
      opened.startRunPart({
        run: this.header({ ...options.config, runGroup: part.group }),
        part: {
          shard: part.shard,
          startedAt: new Date(this.startedAt).toISOString(),
          owner: this.owner(),
        },
      }),
    );
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
        ...(this.part === null ? {} : { shard: this.part.shard.index }),
      });
      this.finishSharedRun();
    } catch (error) {
      this.warn(`Warning: the run's end could not be stored: ${(error as Error).message}`);
    }
    if (!this.announced)
      this.announce({ totalTestCases: options.total, resumedTestCases: 0, metricNames: [] });
    this.emit({ type: "run-end", runId: this.runIdValue, result, message: options.message });
    this.close();
    return result;
  }

  /**
   * Ends the run its shards share once none of its started parts runs any more: the last
   * shard to finish sums it up whole. Two shards ending together may both do it (the same
   * totals); neither can miss it, since each looks after storing its own end.
   */
  private finishSharedRun(): void {
    const store = this.store;
    if (store === null || this.part === null) return;
    const run = store.getRun(this.runIdValue);
    const parts = run?.shards?.parts ?? [];
    if (parts.length === 0 || parts.some((part) => part.status === "running")) return;
    const summary = summarizeShardedRun({
      parts,
      testResults: store.getTestResults(this.runIdValue).map((stored) => stored.result),
    });
    store.finishRun({
      runId: this.runIdValue,
      status: summary.status,
      endedAt: parts.reduce((latest, part) => {
        const ended = part.endedAt ?? "";
        return ended > latest ? ended : latest;
      }, ""),
      summary,
    });
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
      store.heartbeatRun({
        runId: this.runIdValue,
        owner: this.owner(),
        ...(this.part === null ? {} : { shard: this.part.shard.index }),
      });
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
