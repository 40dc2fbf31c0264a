import { ConfigError } from "../errors/config-error.ts";
import { StoreError } from "../errors/store-error.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import type { JudgeText } from "../results/judge-text.ts";
import { judgeTextHashesOf } from "../results/judge-text-hashes.ts";
import { MAX_JUDGE_TEXT_HASHES } from "./judge-texts.ts";
import { readTestResults } from "./read-test-results.ts";
import type { Store, StoredRun, StoredTestResult } from "./run-store.ts";
import { replaceNul } from "./stored-names.ts";

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
  /**
   * Names (run ids and identifiers, calibration ids and metric names) stored before stores
   * refused NUL, written with each NUL replaced by U+FFFD.
   */
  namesReplaced: number;
}

/** Options of {@link copyStore}. */
export interface CopyStoreOptions {
  from: Store;
  to: Store;
  /** Called after each run and each page of judge answers, for progress. */
  onProgress?: (counts: CopyStoreCounts) => void;
  /** Judge answers read per page. @default 500 */
  pageSize?: number;
}

const CACHE_PAGE_SIZE = 500;

/**
 * Copies everything of one store into another, field for field: every run (header, status,
 * summary, owner, shards' parts), every test result with its fingerprint, every calibration
 * report, every judge answer with the time it was stored, every provider batch, and the
 * judge prompts and answers a run keeps (when both stores keep them). Runs are written oldest first, so runs started at the same
 * instant keep their order. A run the target already has (same id) is kept as it is, with the
 * results it lacks added: copying again after an interruption finishes the job. What the
 * copy writes passes through the target's secret masking, as everything a store writes does.
 * A name that holds NUL (stored by an older verdict, before every store refused it) is
 * written with each NUL replaced by U+FFFD, the same way every time: copying again finds it.
 * @throws ConfigError when two runs would get the same id that way (nothing is copied).
 * @example
 * await copyStore({ from: SqliteRunStore.open(), to: await PostgresRunStore.open({ url }) });
 */
export async function copyStore(options: CopyStoreOptions): Promise<CopyStoreCounts> {
  const { from, to } = options;
  const counts: CopyStoreCounts = {
    runsCopied: 0,
    runsKept: 0,
    testResults: 0,
    calibrations: 0,
    judgeAnswers: 0,
    judgeBatches: 0,
    namesReplaced: 0,
  };
  const sourceRuns = (await from.runs.listRuns()).reverse();
  checkReplacedIds(sourceRuns);
  const name = (text: string): string => {
    const replaced = replaceNul(text);
    if (replaced !== text) counts.namesReplaced += 1;
    return replaced;
  };
  for (const source of sourceRuns) {
    const run: StoredRun = {
      ...source,
      id: name(source.id),
      identifier: source.identifier === null ? null : name(source.identifier),
    };
    const existing = await to.runs.getRun(run.id);
    const kept = existing !== null && existing.id === run.id;
    const present = new Set<number>();
    if (kept) {
      counts.runsKept += 1;
      for await (const stored of readTestResults(to, run.id)) present.add(stored.result.index);
    } else {
      await to.runs.startRun(run);
      counts.runsCopied += 1;
    }
    // A page of results at a time, written in parallel: a large run never sits in memory.
    let page: StoredTestResult[] = [];
    const flush = async () => {
      const texts = await readJudgeTexts(from, source.id, page);
      await Promise.all(
        page.map((stored) =>
          to.runs.saveTestResult(run.id, {
            ...stored,
            ...(texts.size === 0 ? {} : { judgeTexts: textsOf(stored, texts) }),
          }),
        ),
      );
      counts.testResults += page.length;
      page = [];
    };
    for await (const stored of readTestResults(from, source.id)) {
      if (present.has(stored.result.index)) continue;
      page.push(stored);
      if (page.length >= 100) await flush();
    }
    await flush();
    options.onProgress?.({ ...counts });
  }
  // Oldest first, as the runs: reports made at the same instant keep their order.
  if (from.calibrations !== null && to.calibrations !== null) {
    for (const stored of (await from.calibrations.listCalibrations()).reverse()) {
      const report: CalibrationReport = {
        ...stored,
        id: name(stored.id),
        runId: replaceNul(stored.runId),
        metric: { ...stored.metric, name: name(stored.metric.name) },
      };
      if ((await to.calibrations.getCalibration(report.id)) !== null) continue;
      await to.calibrations.saveCalibration(report);
      counts.calibrations += 1;
    }
  }
  const batches = from.judgeBatches;
  if (batches !== null && to.judgeBatches !== null) {
    if (batches.list === undefined) {
      throw new StoreError(
        "The source store's judge batch log cannot list its batches: give it a list() method.",
      );
    }
    const all = await batches.list();
    for (const batch of all) await to.judgeBatches.save(batch);
    counts.judgeBatches = all.length;
  }
  await copyJudgeCache({
    from,
    to,
    counts,
    pageSize: options.pageSize ?? CACHE_PAGE_SIZE,
    onProgress: options.onProgress,
  });
  return counts;
}

/** The judge texts the source keeps for a page of results, by hash (none without getJudgeTexts). */
async function readJudgeTexts(
  from: Store,
  runId: string,
  page: readonly StoredTestResult[],
): Promise<Map<string, string>> {
  const hashes = [...new Set(page.flatMap((stored) => judgeTextHashesOf(stored.result)))];
  const texts = new Map<string, string>();
  if (from.runs.getJudgeTexts === undefined) return texts;
  for (let start = 0; start < hashes.length; start += MAX_JUDGE_TEXT_HASHES) {
    const slice = hashes.slice(start, start + MAX_JUDGE_TEXT_HASHES);
    for (const { hash, text } of await from.runs.getJudgeTexts(runId, slice)) texts.set(hash, text);
  }
  return texts;
}

function textsOf(stored: StoredTestResult, texts: ReadonlyMap<string, string>): JudgeText[] {
  return judgeTextHashesOf(stored.result).flatMap((hash) => {
    const text = texts.get(hash);
    return text === undefined ? [] : [{ hash, text }];
  });
}

// Two runs whose ids differ only by NUL against U+FFFD would become one run: refused up front.
function checkReplacedIds(runs: readonly StoredRun[]): void {
  const byId = new Map(runs.map((run) => [run.id, run]));
  for (const run of runs) {
    const replaced = replaceNul(run.id);
    if (replaced === run.id || !byId.has(replaced)) continue;
    throw new ConfigError(
      `Cannot copy run ${JSON.stringify(run.id)}: it holds NUL, which every store now refuses in a run id, and written with U+FFFD in its place it would be run ${JSON.stringify(replaced)}, which the source store also has. Copy the runs you need with evaluate() results, or delete one of the two from the source store first.`,
    );
  }
}

async function copyJudgeCache(options: {
  from: Store;
  to: Store;
  counts: CopyStoreCounts;
  pageSize: number;
  onProgress: ((counts: CopyStoreCounts) => void) | undefined;
}): Promise<void> {
  const { counts, pageSize } = options;
  const source = options.from.judgeCache;
  const target = options.to.judgeCache;
  if (source === null || target === null) return;
  if (source.entries === undefined) {
    throw new StoreError(
      "The source store's judge cache cannot list its entries: only runs were copied.",
    );
  }
  let after: string | undefined;
  for (;;) {
    const page = await source.entries({ after, limit: pageSize });
    await Promise.all(
      page.map((entry) => target.set(entry.key, entry.answer, { createdAt: entry.createdAt })),
    );
    counts.judgeAnswers += page.length;
    if (page.length > 0) options.onProgress?.({ ...counts });
    if (page.length < pageSize) return;
    after = page.at(-1)?.key;
  }
}
