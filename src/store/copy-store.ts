import { StoreError } from "../errors/store-error.ts";
import type { OpenedRunStore } from "./open-run-store.ts";

/** What {@link copyStore} did. */
export interface CopyStoreCounts {
  /** Runs written to the target, with all their results. */
  runsCopied: number;
  /** Runs the target already had: left as they are, missing results added. */
  runsKept: number;
  testResults: number;
  /** Calibration reports written (those the target had are kept). */
  calibrations: number;
  judgeAnswers: number;
  /** Provider batches of judge requests, open and closed. */
  judgeBatches: number;
}

/** Options of {@link copyStore}. */
export interface CopyStoreOptions {
  from: OpenedRunStore;
  to: OpenedRunStore;
  /** Called after each run and each page of judge answers, for progress. */
  onProgress?: (counts: CopyStoreCounts) => void;
  /** Judge answers read per page. @default 500 */
  pageSize?: number;
}

const CACHE_PAGE_SIZE = 500;

/**
 * Copies everything of one store into another, field for field: every run (header, status,
 * summary, owner, shards' parts), every test result with its fingerprint, every calibration
 * report, every judge answer with the time it was stored, every provider batch. Runs are written oldest first, so runs started at the same
 * instant keep their order. A run the target already has (same id) is kept as it is, with the
 * results it lacks added: copying again after an interruption finishes the job. What the
 * copy writes passes through the target's secret masking, as everything a store writes does.
 * @example
 * copyStore({ from: SqliteRunStore.open(), to: new PostgresRunStore({ url }) });
 */
export function copyStore(options: CopyStoreOptions): CopyStoreCounts {
  const { from, to } = options;
  const counts: CopyStoreCounts = {
    runsCopied: 0,
    runsKept: 0,
    testResults: 0,
    calibrations: 0,
    judgeAnswers: 0,
    judgeBatches: 0,
  };
  for (const run of from.listRuns().reverse()) {
    const results = from.getTestResults(run.id);
    const existing = to.getRun(run.id);
    if (existing !== null && existing.id === run.id) {
      counts.runsKept += 1;
      const present = new Set(to.getTestResults(run.id).map((stored) => stored.result.index));
      for (const stored of results) {
        if (present.has(stored.result.index)) continue;
        to.saveTestResult(run.id, stored);
        counts.testResults += 1;
      }
    } else {
      to.startRun(run);
      for (const stored of results) to.saveTestResult(run.id, stored);
      counts.runsCopied += 1;
      counts.testResults += results.length;
    }
    options.onProgress?.({ ...counts });
  }
  // Oldest first, as the runs: reports made at the same instant keep their order.
  for (const report of from.listCalibrations().reverse()) {
    if (to.getCalibration(report.id) !== null) continue;
    to.saveCalibration(report);
    counts.calibrations += 1;
  }
  const batches = from.judgeBatches;
  if (batches !== undefined && to.judgeBatches !== undefined) {
    if (batches.list === undefined) {
      throw new StoreError(
        "The source store's judge batch log cannot list its batches: give it a list() method.",
      );
    }
    for (const batch of batches.list()) to.judgeBatches.save(batch);
    counts.judgeBatches = batches.list().length;
  }
  copyJudgeCache({
    from,
    to,
    counts,
    pageSize: options.pageSize ?? CACHE_PAGE_SIZE,
    onProgress: options.onProgress,
  });
  return counts;
}

function copyJudgeCache(options: {
  from: OpenedRunStore;
  to: OpenedRunStore;
  counts: CopyStoreCounts;
  pageSize: number;
  onProgress: ((counts: CopyStoreCounts) => void) | undefined;
}): void {
  const { counts, pageSize } = options;
  const source = options.from.judgeCache;
  const target = options.to.judgeCache;
  if (source === undefined || target === undefined) return;
  if (source.entries === undefined) {
    throw new StoreError(
      "The source store's judge cache cannot list its entries: only runs were copied.",
    );
  }
  let after: string | undefined;
  for (;;) {
    const page = source.entries({ after, limit: pageSize });
    for (const entry of page) {
      target.set(entry.key, entry.answer, { createdAt: entry.createdAt });
    }
    counts.judgeAnswers += page.length;
    if (page.length > 0) options.onProgress?.({ ...counts });
    if (page.length < pageSize) return;
    after = page.at(-1)?.key;
  }
}
