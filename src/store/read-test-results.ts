import type { Store, StoredTestResult } from "./run-store.ts";

const PAGE_SIZE = 1000;

/**
 * A run's stored results in index order, read a page at a time (`getTestResults` with
 * `afterIndex` and `limit`), so that a run of any size is read without holding it whole.
 * @example
 * for await (const stored of readTestResults(store, runId)) console.log(stored.result.index);
 */
export async function* readTestResults(
  store: Pick<Store, "runs">,
  runId: string,
  options: { pageSize?: number } = {},
): AsyncGenerator<StoredTestResult> {
  const pageSize = options.pageSize ?? PAGE_SIZE;
  let afterIndex = -1;
  for (;;) {
    const page = await store.runs.getTestResults(runId, { afterIndex, limit: pageSize });
    yield* page;
    const last = page.at(-1);
    if (page.length < pageSize || last === undefined) return;
    afterIndex = last.result.index;
  }
}
