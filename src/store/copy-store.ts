import { StoreError } from "../errors/store-error.ts";
import type { OpenedRunStore } from "./open-run-store.ts";

/** What {@link copyStore} did. */
export interface CopyStoreCounts {
  /** Runs written to the target, with all their results. */
  runsCopied: number;
  /** Runs the target already had: left as they are, missing results added. */
  runsKept: number;
  testResults: number;
  judgeAnswers: number;
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
 * summary, owner, shards' parts), every test result with its fingerprint, every judge answer
 * with the time it was stored. Runs are written oldest first, so runs started at the same
 * instant keep their order. A run the target already has (same id) is kept as it is, with the
 * results it lacks added: copying again after an interruption finishes the job. What the
 * copy writes passes through the target's secret masking, as everything a store writes does.
 * @example
 * copyStore({ from: SqliteRunStore.open(), to: new PostgresRunStore({ url }) });
 */
export function copyStore(options: CopyStoreOptions): CopyStoreCounts {
  const { from, to } = options;
  const counts: CopyStoreCounts = { runsCopied: 0, runsKept: 0, testResults: 0, judgeAnswers: 0 };
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
  const source = from.judgeCache;
  const target = to.judgeCache;
  if (source === undefined || target === undefined) return counts;
  if (source.entries === undefined) {
    throw new StoreError(
      "The source store's judge cache cannot list its entries: only runs were copied.",
    );
  }
  const pageSize = options.pageSize ?? CACHE_PAGE_SIZE;
  let after: string | undefined;
  for (;;) {
    const page = source.entries({ after, limit: pageSize });
    for (const entry of page) {
      target.set(entry.key, entry.answer, { createdAt: entry.createdAt });
    }
    counts.judgeAnswers += page.length;
    if (page.length > 0) options.onProgress?.({ ...counts });
    if (page.length < pageSize) return counts;
    after = page.at(-1)?.key;
  }
}
