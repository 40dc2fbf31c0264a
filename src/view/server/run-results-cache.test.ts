import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import { makeStoredRun, makeStoredTestResult } from "../../testing/store-contract.ts";
import { RunResultsCache } from "./run-results-cache.ts";

async function storeWithRuns(): Promise<{
  store: MemoryRunStore;
  reads: Array<[string, number | undefined]>;
}> {
  const store = new MemoryRunStore();
  for (const id of ["a", "b"]) {
    await store.runs.startRun(makeStoredRun({ id }));
    await store.runs.saveTestResult(id, makeStoredTestResult(0));
    await store.runs.saveTestResult(id, makeStoredTestResult(1));
  }
  const reads: Array<[string, number | undefined]> = [];
  const read = store.getTestResults.bind(store);
  store.getTestResults = (runId, options) => {
    reads.push([runId, options?.changedAfter]);
    return read(runId, options);
  };
  return { store, reads };
}

describe("RunResultsCache", () => {
  it("reads a run once, then only the results saved since, keeping unchanged entries", async () => {
    const { store, reads } = await storeWithRuns();
    const cache = new RunResultsCache({ store });
    const first = await cache.load("a");
    expect(await cache.load("a")).toBe(first);
    await store.runs.saveTestResult("a", makeStoredTestResult(1, { input: "replaced" }));
    await store.runs.saveTestResult("a", makeStoredTestResult(2));
    const second = await cache.load("a");
    expect(second.results.map((result) => [result.index, result.input])).toEqual([
      [0, "question 0"],
      [1, "replaced"],
      [2, "question 2"],
    ]);
    expect(second.entry("0")).toBe(first.entry("0"));
    expect(reads).toEqual([
      ["a", undefined],
      ["a", first.version],
    ]);
  });

  it("shares one read between requests arriving together", async () => {
    const { store, reads } = await storeWithRuns();
    const cache = new RunResultsCache({ store });
    const [one, two] = await Promise.all([cache.load("a"), cache.load("a")]);
    expect(one).toBe(two);
    expect(reads).toHaveLength(1);
  });

  it("lets the least recently used runs go beyond its size, never the run just read", async () => {
    const { store, reads } = await storeWithRuns();
    const cache = new RunResultsCache({ store, maxCases: 3 });
    await cache.load("a");
    await cache.load("b");
    expect(cache.peek("a")).toBeUndefined();
    expect(cache.peek("b")?.size).toBe(2);
    await cache.load("a");
    expect(reads.map(([runId]) => runId)).toEqual(["a", "b", "a"]);
    const tiny = new RunResultsCache({ store, maxCases: 1 });
    expect((await tiny.load("a")).size).toBe(2);
    expect(tiny.peek("a")?.size).toBe(2);
  });
});
