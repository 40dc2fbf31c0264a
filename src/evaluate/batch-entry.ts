import type {
  JudgeBatchApi,
  JudgeBatchLineResult,
  JudgeModel,
  JudgeRequest,
} from "../judge/judge-model.ts";
import type { JudgeResponse } from "../judge/judge-transport.ts";
import type { RetryPolicy } from "../judge/retry-policy.ts";
import type { Sleep } from "../judge/with-retries.ts";
import type { JudgeBatchLog, StoredJudgeBatch } from "../store/run-store.ts";
import type { JudgeBatchProgress, ResolvedBatchOptions } from "./batch-options.ts";

/** A judge request waiting for a batch, with what settles it. */
export interface BatchEntry {
  /** The judge cache key: also the line's id in the batch. */
  key: string;
  judge: JudgeModel & { batch: JudgeBatchApi };
  request: JudgeRequest;
  /** Sends the request directly (the scheduler's path: concurrency slot, retries). */
  direct: () => Promise<JudgeResponse>;
  /** Batches this request was in and failed in. */
  attempts: number;
  resolve: (response: JudgeResponse) => void;
  reject: (error: unknown) => void;
  settled: boolean;
}

/** Settings of batching, shared by the dispatcher and its batch runs. */
export interface BatchSettings {
  batch: ResolvedBatchOptions;
  /** Where batches are recorded for resuming; `null` for nowhere. */
  log: JudgeBatchLog | null;
  onProgress?: ((progress: JudgeBatchProgress) => void) | undefined;
  /** Told once when the batch log cannot be written (the run goes on, without resumability). */
  onWarning?: ((message: string) => void) | undefined;
  /** Retries of the batch API's own calls (submit, status, results). */
  retry?: Partial<RetryPolicy> | undefined;
  sleep?: Sleep | undefined;
  random?: (() => number) | undefined;
  now?: (() => number) | undefined;
}

/** What a batch run asks of the dispatcher that started it. */
export interface BatchHost {
  /** Puts a request in the next batch of its judge. */
  enqueue(entry: BatchEntry): void;
  /** Sends requests directly, saying why when `why` is given. */
  sendDirect(entries: readonly BatchEntry[], why?: { judge: string; message: string }): void;
  /** Stops batching a judge: its later requests go directly. */
  disable(judge: JudgeModel): void;
  /** Records a batch in the log (after the writes before it); resolves once written. */
  record(batch: StoredJudgeBatch): Promise<void>;
  /** Reports a batch's progress. */
  report(progress: JudgeBatchProgress): void;
  /** A batch run finished. */
  forget(run: { id: string; batchId: string | null; keys: readonly string[] }): void;
}

/** Where a line's failure sends its request: the next batch, or directly. */
export function routeFailedLine(options: {
  result: Exclude<JudgeBatchLineResult, { status: "answered" }> | null;
  /** Batches the request failed in, this one included. */
  attempts: number;
  maxAttempts: number;
}): "next batch" | "direct" {
  const { result } = options;
  // Missing (the batch failed as a whole), expired or cancelled: another batch could wait as
  // long again.
  if (result === null || result.status !== "failed") return "direct";
  const status = result.error.statusCode;
  // A rejected request fails the same way in any batch; sent directly, it gets the judge's
  // own handling (a structured-output or temperature step-down, a clear error).
  if (status !== null && status >= 400 && status < 500 && ![408, 409, 429].includes(status)) {
    return "direct";
  }
  return options.attempts < options.maxAttempts ? "next batch" : "direct";
}
