import { JudgeCallError } from "../errors/judge-call-error.ts";
import { toJudgeResponse } from "../judge/direct-transport.ts";
import type { JudgeBatchApi, JudgeBatchLineResult, JudgeBatchState } from "../judge/judge-model.ts";
import { DEFAULT_RETRY_POLICY } from "../judge/retry-policy.ts";
import { defaultSleep, withRetries } from "../judge/with-retries.ts";
import type { StoredJudgeBatch } from "../store/run-store.ts";
import {
  type BatchEntry,
  type BatchHost,
  type BatchSettings,
  routeFailedLine,
} from "./batch-entry.ts";

// Reading a large batch's results is one long download: not held to one attempt's time limit.
const MIN_RESULTS_TIMEOUT_MS = 600_000;
const POLL_GROWTH = 1.5;

let nextRunNumber = 0;

/**
 * One provider batch, from submission (or, for a batch an earlier run submitted, its first
 * status check) to the delivery of its answers: polled with waits that grow by half each time,
 * recorded in the batch log at each change of status, and given up (left open in the log,
 * for the next run) as soon as no request of this run waits for it.
 */
export class JudgeBatchRun {
  /** Identifies the run among the dispatcher's (provider and batch id once known). */
  readonly id: string;
  private readonly dispatcher: BatchHost;
  private readonly options: BatchSettings;
  private readonly api: JudgeBatchApi;
  private readonly judgeName: string;
  private readonly waiters = new Map<string, BatchEntry>();
  /** Aborted when no request waits any more: stops polling, leaves the batch to a later run. */
  private readonly controller = new AbortController();
  private stored: StoredJudgeBatch | null;
  private ended = false;

  private constructor(options: {
    dispatcher: BatchHost;
    options: BatchSettings;
    entries: readonly BatchEntry[];
    stored: StoredJudgeBatch | null;
  }) {
    const first = options.entries[0] as BatchEntry;
    this.dispatcher = options.dispatcher;
    this.options = options.options;
    this.api = first.judge.batch;
    this.judgeName = first.judge.name;
    this.stored = options.stored;
    this.id =
      options.stored === null
        ? `new\u0000${nextRunNumber++}`
        : `${options.stored.provider}\u0000${options.stored.id}`;
    for (const entry of options.entries) this.join(entry);
  }

  /** A run that submits these requests as a new batch. */
  static submit(options: {
    dispatcher: BatchHost;
    options: BatchSettings;
    entries: readonly BatchEntry[];
  }): JudgeBatchRun {
    return new JudgeBatchRun({ ...options, stored: null });
  }

  /** A run that polls a batch an earlier run submitted, for these of its requests. */
  static resume(options: {
    dispatcher: BatchHost;
    options: BatchSettings;
    stored: StoredJudgeBatch;
    entries: readonly BatchEntry[];
  }): JudgeBatchRun {
    return new JudgeBatchRun(options);
  }

  /** The provider's batch id, once submitted. */
  get batchId(): string | null {
    return this.stored?.id ?? null;
  }

  /** The request keys the batch holds. */
  get keys(): readonly string[] {
    return this.stored?.requestKeys ?? [...this.waiters.keys()];
  }

  /** The requests still waiting for this batch. */
  entries(): BatchEntry[] {
    return [...this.waiters.values()];
  }

  /** Adds a request the batch holds; `false` once its answers were delivered. */
  join(entry: BatchEntry): boolean {
    if (this.ended) return false;
    this.waiters.set(entry.key, entry);
    entry.request.signal?.addEventListener(
      "abort",
      () => {
        if (this.waiters.get(entry.key) !== entry) return;
        this.waiters.delete(entry.key);
        if (this.waiters.size === 0) this.controller.abort();
      },
      { once: true },
    );
    return true;
  }

  /** Submits or resumes the batch, polls it to its end and delivers its answers. */
  async run(): Promise<void> {
    try {
      let state: JudgeBatchState | null = null;
      if (this.stored === null) {
        state = await this.submit();
        if (state === null) return;
      } else {
        this.report({ event: "resumed", state: null });
      }
      let waitMs = this.options.batch.pollIntervalMs;
      while (state === null || state.phase === "pending") {
        if (state !== null) {
          await (this.options.sleep ?? defaultSleep)({
            delayMs: waitMs,
            signal: this.controller.signal,
          });
          waitMs = Math.min(waitMs * POLL_GROWTH, this.options.batch.maxPollIntervalMs);
        }
        if (this.waiters.size === 0) return;
        const resumedFirstCheck = state === null;
        try {
          state = await this.call((signal) =>
            this.api.status({ batchId: this.batchId as string, signal }),
          );
        } catch (error) {
          // The provider does not know a batch an earlier run recorded (another account, or
          // long gone): it is forgotten, and its requests are submitted anew.
          if (resumedFirstCheck && isRefusal(error)) {
            this.close("unknown");
            this.ended = true;
            this.dispatcher.forget(this);
            for (const entry of this.waiters.values()) this.dispatcher.enqueue(entry);
            return;
          }
          throw error;
        }
        this.noteStatus(state);
      }
      const results = await this.call(
        (signal) => this.api.results({ batchId: this.batchId as string, signal }),
        { minTimeoutMs: MIN_RESULTS_TIMEOUT_MS },
      );
      this.deliver({ state, results });
    } catch (error) {
      // No one waits (the run stopped): the batch stays open in the log for the next run.
      if (this.controller.signal.aborted) return;
      for (const entry of this.waiters.values()) entry.reject(error);
    } finally {
      this.ended = true;
      this.dispatcher.forget(this);
    }
  }

  /** Submits the batch; `null` when it could not be made (its requests then went directly). */
  private async submit(): Promise<JudgeBatchState | null> {
    const entries = [...this.waiters.values()];
    let state: JudgeBatchState;
    try {
      state = await this.call((signal) =>
        this.api.start({
          lines: entries.map((entry) => ({ id: entry.key, request: entry.request })),
          signal,
        }),
      );
    } catch (error) {
      if (this.controller.signal.aborted) return null;
      const message =
        `Judge "${this.judgeName}": a batch could not be submitted (${(error as Error).message}); ` +
        "its requests, and the later ones of this judge, are sent directly.";
      const judge = (entries[0] as BatchEntry).judge;
      this.dispatcher.disable(judge);
      this.ended = true;
      this.dispatcher.sendDirect(entries, { judge: this.judgeName, message });
      return null;
    }
    const now = new Date().toISOString();
    this.stored = {
      id: state.batchId,
      provider: this.api.provider,
      judge: this.judgeName,
      requestKeys: entries.map((entry) => entry.key),
      state: "open",
      providerStatus: state.providerStatus,
      createdAt: now,
      updatedAt: now,
    };
    // Kept before the wait begins: a run killed while it waits resumes this batch.
    await this.dispatcher.record(this.stored);
    this.report({ event: "submitted", state });
    return state;
  }

  private noteStatus(state: JudgeBatchState): void {
    const stored = this.stored as StoredJudgeBatch;
    if (state.providerStatus !== stored.providerStatus) {
      this.stored = {
        ...stored,
        providerStatus: state.providerStatus,
        updatedAt: new Date().toISOString(),
      };
      void this.dispatcher.record(this.stored);
    }
    // The last status is reported with the results, as "ended".
    if (state.phase === "pending") this.report({ event: "status", state });
  }

  /** Settles every waiting request: its answer, or its next try (next batch, or directly). */
  private deliver(options: { state: JudgeBatchState; results: JudgeBatchLineResult[] }): void {
    const { state, results } = options;
    this.ended = true;
    const byKey = new Map(results.map((result) => [result.id, result]));
    const direct: BatchEntry[] = [];
    let retried = 0;
    for (const entry of this.waiters.values()) {
      const result = byKey.get(entry.key) ?? null;
      if (result?.status === "answered") {
        entry.resolve(toJudgeResponse({ judge: entry.judge, answer: result.answer }));
        continue;
      }
      entry.attempts += 1;
      const route = routeFailedLine({
        result,
        attempts: entry.attempts,
        maxAttempts: this.options.batch.maxAttempts,
      });
      if (route === "direct") direct.push(entry);
      else {
        retried += 1;
        this.dispatcher.enqueue(entry);
      }
    }
    this.close(state.providerStatus);
    this.report({ event: "ended", state });
    if (direct.length > 0) {
      const why =
        state.error !== null
          ? `the batch failed: ${state.error}`
          : `their lines ended "${describeOutcomes(direct.map((entry) => byKey.get(entry.key)))}"`;
      this.dispatcher.sendDirect(direct, {
        judge: this.judgeName,
        message:
          `Batch ${this.batchId} (${state.providerStatus}): ${direct.length} requests are sent directly, as ${why}` +
          (retried > 0 ? `; ${retried} go into the next batch.` : "."),
      });
    }
  }

  private close(providerStatus: string): void {
    if (this.stored === null) return;
    this.stored = {
      ...this.stored,
      state: "closed",
      providerStatus,
      updatedAt: new Date().toISOString(),
    };
    void this.dispatcher.record(this.stored);
  }

  private report(options: {
    event: "submitted" | "resumed" | "status" | "ended";
    state: JudgeBatchState | null;
  }): void {
    const { state } = options;
    this.dispatcher.report({
      judge: this.judgeName,
      provider: this.api.provider,
      batchId: this.batchId,
      event: options.event,
      providerStatus: state?.providerStatus ?? this.stored?.providerStatus ?? null,
      lines: this.waiters.size,
      counts: state?.counts ?? null,
    });
  }

  /** One call of the batch API, with the run's retry policy (rate limits, server errors). */
  private call<Result>(
    run: (signal: AbortSignal) => Promise<Result>,
    options: { minTimeoutMs?: number } = {},
  ): Promise<Result> {
    const policy = { ...this.options.retry };
    if (options.minTimeoutMs !== undefined) {
      policy.timeoutMs = Math.max(policy.timeoutMs ?? 0, options.minTimeoutMs);
      // maxElapsedMs bounds a call's attempts together: it must leave the download its time.
      policy.maxElapsedMs = Math.max(
        policy.maxElapsedMs ?? DEFAULT_RETRY_POLICY.maxElapsedMs,
        options.minTimeoutMs,
      );
    }
    return withRetries({
      run,
      judgeName: this.judgeName,
      policy,
      signal: this.controller.signal,
      sleep: this.options.sleep,
      random: this.options.random,
      now: this.options.now,
    });
  }
}

/** A failure no retry helps: the provider refused the call (4xx). */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof JudgeCallError &&
    !error.retryable &&
    error.status !== null &&
    error.status >= 400 &&
    error.status < 500
  );
}

function describeOutcomes(results: ReadonlyArray<JudgeBatchLineResult | undefined>): string {
  const counts = new Map<string, number>();
  for (const result of results) {
    const outcome =
      result === undefined
        ? "missing"
        : result.status === "failed" && result.error.statusCode !== null
          ? `failed (${result.error.statusCode})`
          : result.status;
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  return [...counts.entries()].map(([outcome, count]) => `${outcome}: ${count}`).join(", ");
}
