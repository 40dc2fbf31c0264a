import { describeCancelledJudgeCall } from "../errors/describe-judge-call-failure.ts";
import { EvalError } from "../errors/eval-error.ts";
import type { JudgeBatchApi, JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import type { JudgeResponse } from "../judge/judge-transport.ts";
import type { StoredJudgeBatch } from "../store/run-store.ts";
import type { BatchEntry, BatchHost, BatchSettings } from "./batch-entry.ts";
import type { JudgeBatchProgress } from "./batch-options.ts";
import { JudgeBatchRun } from "./judge-batch-run.ts";
import { planBatches } from "./plan-batches.ts";

/**
 * Gathers judge requests into provider batches. Requests arriving together (each case's next
 * step, all cases at once) are submitted as one batch per judge once `collectMs` pass without
 * a new one; each batch is polled with growing waits, its answers settle the requests, and
 * the cases go on to their next step, which makes the next batch. A request that an open
 * batch in the log already holds (a run killed while it waited) joins that batch instead of a
 * new one. Lines that fail go into the next batch, or directly after `maxAttempts` batches;
 * lines of an expired batch, rejected lines (4xx) and batches that cannot be made go directly.
 */
export class BatchDispatcher implements BatchHost {
  private readonly options: BatchSettings;
  private readonly pending = new Map<string, BatchEntry[]>();
  /** Open batches of earlier runs by request key, loaded from the log at the first flush. */
  private known: Promise<Map<string, StoredJudgeBatch>> | null = null;
  /** The log's writes, one after another so that a batch's later state is never overtaken. */
  private logWrites: Promise<void> = Promise.resolve();
  /** Batches being polled, by provider and id. */
  private readonly running = new Map<string, JudgeBatchRun>();
  /** Judges whose batches cannot be made: their requests go directly. */
  private readonly disabled = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private logFailed = false;

  constructor(options: BatchSettings) {
    this.options = options;
  }

  /** Whether requests to this judge go through batches. */
  handles(judge: JudgeModel): judge is JudgeModel & { batch: JudgeBatchApi } {
    return (judge.batch ?? null) !== null && !this.disabled.has(judge.name);
  }

  /** Queues a request for the next batch of its judge; resolves with its answer. */
  send(options: {
    key: string;
    judge: JudgeModel & { batch: JudgeBatchApi };
    request: JudgeRequest;
    direct: () => Promise<JudgeResponse>;
  }): Promise<JudgeResponse> {
    return new Promise<JudgeResponse>((resolve, reject) => {
      const signal = options.request.signal;
      const entry: BatchEntry = {
        ...options,
        attempts: 0,
        settled: false,
        resolve: (response) => {
          if (entry.settled) return;
          entry.settled = true;
          signal?.removeEventListener("abort", onAbort);
          resolve(response);
        },
        reject: (error) => {
          if (entry.settled) return;
          entry.settled = true;
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      // The batch goes on at the provider: a later run that asks the same requests polls it.
      const onAbort = () =>
        entry.reject(
          new EvalError("ABORTED", describeCancelledJudgeCall(entry.judge.name), {
            cause: signal?.reason,
          }),
        );
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.enqueue(entry);
    });
  }

  /** Puts an entry in the next batch of its judge (a new request, or one whose line failed). */
  enqueue(entry: BatchEntry): void {
    if (!this.handles(entry.judge)) {
      this.sendDirect([entry]);
      return;
    }
    const queue = this.pending.get(entry.judge.name) ?? [];
    queue.push(entry);
    this.pending.set(entry.judge.name, queue);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.options.batch.collectMs);
  }

  /** Sends entries directly (e.g. their batch expired), each settling on its own. */
  sendDirect(entries: readonly BatchEntry[], why?: { judge: string; message: string }): void {
    const live = entries.filter((entry) => !entry.settled);
    if (live.length === 0) return;
    if (why !== undefined) {
      this.report({
        judge: why.judge,
        provider: live[0]?.judge.batch.provider ?? "",
        batchId: null,
        event: "direct",
        providerStatus: null,
        lines: live.length,
        counts: null,
        message: why.message,
      });
    }
    for (const entry of live) entry.direct().then(entry.resolve, entry.reject);
  }

  /** Stops batching a judge: its queued and later requests go directly. */
  disable(judge: JudgeModel): void {
    this.disabled.add(judge.name);
  }

  /**
   * Records a batch in the log, after the writes before it; resolves once written. A failing
   * log costs resumability, never the run.
   */
  record(batch: StoredJudgeBatch): Promise<void> {
    const { log } = this.options;
    if (log === null) return Promise.resolve();
    // Caught after the call, not on its promise: a log of one's own that throws before it
    // returns a promise must not fail the run, nor every later write chained on this one.
    this.logWrites = this.logWrites
      .then(() => log.save(batch))
      .catch((error: unknown) => {
        if (this.logFailed) return;
        this.logFailed = true;
        this.options.onWarning?.(
          `Warning: judge batch ${batch.id} could not be recorded in the store (${(error as Error).message}); ` +
            "a run interrupted while it waits will submit its requests again.",
        );
      });
    return this.logWrites;
  }

  /** Reports a batch's progress to the run. */
  report(progress: JudgeBatchProgress): void {
    this.options.onProgress?.(progress);
  }

  /** A batch run finished: it no longer holds its requests. */
  forget(run: { id: string; batchId: string | null; keys: readonly string[] }): void {
    this.running.delete(run.id);
    void this.known?.then((known) => {
      for (const key of run.keys) {
        if (known.get(key)?.id === run.batchId) known.delete(key);
      }
    });
  }

  private async flush(): Promise<void> {
    this.timer = null;
    const groups = [...this.pending.values()];
    this.pending.clear();
    this.known ??= this.loadKnown();
    const known = await this.known;
    for (const entries of groups) {
      const live = entries.filter((entry) => !entry.settled);
      const judge = live[0]?.judge;
      if (judge === undefined) continue;
      if (!this.handles(judge)) {
        this.sendDirect(live);
        continue;
      }
      const fresh = this.joinKnownBatches(live, known);
      for (const lines of planBatches({
        entries: fresh,
        maxLines: Math.min(this.options.batch.maxLines ?? Infinity, judge.batch.maxLines),
        maxBytes: judge.batch.maxBytes,
      })) {
        this.start(
          JudgeBatchRun.submit({ dispatcher: this, options: this.options, entries: lines }),
        );
      }
    }
  }

  /** Entries an open batch of an earlier run holds join it; returns the others. */
  private joinKnownBatches(
    entries: BatchEntry[],
    known: Map<string, StoredJudgeBatch>,
  ): BatchEntry[] {
    const fresh: BatchEntry[] = [];
    const joined = new Map<string, { stored: StoredJudgeBatch; entries: BatchEntry[] }>();
    for (const entry of entries) {
      const stored = entry.attempts === 0 ? known.get(entry.key) : undefined;
      if (stored === undefined || stored.provider !== entry.judge.batch.provider) {
        fresh.push(entry);
        continue;
      }
      const id = `${stored.provider}\u0000${stored.id}`;
      const running = this.running.get(id);
      if (running?.join(entry)) continue;
      const group = joined.get(id) ?? { stored, entries: [] };
      group.entries.push(entry);
      joined.set(id, group);
    }
    for (const { stored, entries: waiting } of joined.values()) {
      this.start(
        JudgeBatchRun.resume({ dispatcher: this, options: this.options, stored, entries: waiting }),
      );
    }
    return fresh;
  }

  private start(run: JudgeBatchRun): void {
    this.running.set(run.id, run);
    run.run().catch((error: unknown) => {
      // A batch run settles its entries itself; this only guards against a bug leaving them.
      for (const entry of run.entries()) entry.reject(error);
      this.forget(run);
    });
  }

  private async loadKnown(): Promise<Map<string, StoredJudgeBatch>> {
    const known = new Map<string, StoredJudgeBatch>();
    try {
      for (const stored of (await this.options.log?.listOpen()) ?? []) {
        for (const key of stored.requestKeys) known.set(key, stored);
      }
    } catch (error) {
      this.options.onWarning?.(
        `Warning: the open judge batches could not be read from the store (${(error as Error).message}); ` +
          "requests are submitted in new batches.",
      );
    }
    return known;
  }
}
