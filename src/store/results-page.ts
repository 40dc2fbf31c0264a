import type { StoredTestResult } from "./run-store.ts";

/** One page of a run's results: indices above `afterIndex`, at most `limit` of them. */
export interface ResultsPage {
  afterIndex: number;
  limit: number;
}

/**
 * The page `getTestResults` options ask for: `null` for all results, or what is wrong with
 * `afterIndex` or `limit` (for the store's error).
 */
export function checkResultsPage(options: {
  afterIndex?: number | undefined;
  limit?: number | undefined;
}): ResultsPage | null | string {
  const { afterIndex, limit } = options;
  if (afterIndex === undefined && limit === undefined) return null;
  if (afterIndex !== undefined && (!Number.isSafeInteger(afterIndex) || afterIndex < -1)) {
    return "afterIndex must be an integer of at least -1";
  }
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    return "limit must be a non-negative integer";
  }
  return { afterIndex: afterIndex ?? -1, limit: limit ?? Number.MAX_SAFE_INTEGER };
}

/** The results of `results` (in index order) that fall in `page`. */
export function pageOf(
  results: readonly StoredTestResult[],
  page: ResultsPage,
): StoredTestResult[] {
  return results.filter((stored) => stored.result.index > page.afterIndex).slice(0, page.limit);
}
