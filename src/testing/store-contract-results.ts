/** The store contract's test results: order, replacing, versions, pages, secrets, isolation. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { readTestResults } from "../store/read-test-results.ts";
import type { StoredTestResult, StoreRuns } from "../store/run-store.ts";
import {
  makeMetricData,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "./store-contract-data.ts";
import type { CurrentStore } from "./store-contract-support.ts";
import { makeVariedTestResult } from "./varied-test-results.ts";

const indices = (results: StoredTestResult[]) => results.map((stored) => stored.result.index);

/** Declares the store contract's groups on test results: whole, in pages, secrets, isolation. */
export function describeResultsContract(current: CurrentStore): void {
  let runs: StoreRuns;

  describe("test results", () => {
    beforeEach(() => {
      runs = current().runs;
    });

    it("returns saved results in index order, whatever the order of saving", async () => {
      await runs.startRun(makeStoredRun());
      for (const index of [2, 0, 10, 1]) {
        await runs.saveTestResult("run-1", makeStoredTestResult(index));
      }
      expect(await runs.getTestResults("run-1")).toEqual(
        [0, 1, 2, 10].map((index) => makeStoredTestResult(index)),
      );
    });

    it("replaces the result saved at the same index", async () => {
      await runs.startRun(makeStoredRun());
      await runs.saveTestResult("run-1", makeStoredTestResult(0));
      const replacement = {
        ...makeStoredTestResult(0, { success: false }),
        fingerprint: "changed",
      };
      await runs.saveTestResult("run-1", replacement);
      expect(await runs.getTestResults("run-1")).toEqual([replacement]);
    });

    it("keeps every result of saves made at once", async () => {
      await runs.startRun(makeStoredRun());
      await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          runs.saveTestResult("run-1", makeStoredTestResult(index)),
        ),
      );
      expect(indices(await runs.getTestResults("run-1"))).toEqual(
        Array.from({ length: 200 }, (_, index) => index),
      );
      expect((await runs.getTestResultsVersion("run-1")).count).toBe(200);
    });

    it("keeps each run's results apart", async () => {
      await runs.startRun(makeStoredRun({ id: "a" }));
      await runs.startRun(makeStoredRun({ id: "b" }));
      await runs.saveTestResult("a", makeStoredTestResult(0, { input: "from a" }));
      await runs.saveTestResult("b", makeStoredTestResult(0, { input: "from b" }));
      const inputs = async (runId: string) =>
        (await runs.getTestResults(runId)).map((stored) => stored.result.input);
      expect(await inputs("a")).toEqual(["from a"]);
      expect(await inputs("b")).toEqual(["from b"]);
      expect(await runs.getTestResults("unknown")).toEqual([]);
    });

    it("counts results and versions every save, so a reader re-reads only what changed", async () => {
      await runs.startRun(makeStoredRun());
      await runs.startRun(makeStoredRun({ id: "other" }));
      expect(await runs.getTestResultsVersion("run-1")).toEqual({ count: 0, version: 0 });
      expect(await runs.getTestResultsVersion("unknown")).toEqual({ count: 0, version: 0 });
      await runs.saveTestResult("run-1", makeStoredTestResult(0));
      await runs.saveTestResult("run-1", makeStoredTestResult(1));
      await runs.saveTestResult("other", makeStoredTestResult(0));
      const seen = await runs.getTestResultsVersion("run-1");
      expect(seen.count).toBe(2);
      expect(seen.version).toBeGreaterThan(0);
      expect(await runs.getTestResults("run-1", { changedAfter: seen.version })).toEqual([]);
      const replacement = makeStoredTestResult(0, { input: "again" });
      await runs.saveTestResult("run-1", replacement);
      await runs.saveTestResult("run-1", makeStoredTestResult(5));
      const now = await runs.getTestResultsVersion("run-1");
      expect(now.count).toBe(3);
      expect(now.version).toBeGreaterThan(seen.version);
      expect(await runs.getTestResults("run-1", { changedAfter: seen.version })).toEqual([
        replacement,
        makeStoredTestResult(5),
      ]);
      expect(await runs.getTestResults("run-1", { changedAfter: 0 })).toHaveLength(3);
      expect((await runs.getTestResultsVersion("other")).count).toBe(1);
    });

    it("refuses a result for a run that was never started", async () => {
      await expect(runs.saveTestResult("nope", makeStoredTestResult(0))).rejects.toThrow(
        /call startRun first/,
      );
    });

    it("refuses a result without a valid index", async () => {
      await runs.startRun(makeStoredRun());
      await expect(runs.saveTestResult("run-1", makeStoredTestResult(-1))).rejects.toThrow(
        StoreError,
      );
      await expect(runs.saveTestResult("run-1", makeStoredTestResult(0.5))).rejects.toThrow(
        StoreError,
      );
    });

    it("keeps every field of varied results (steps, judge calls, traces, files, tags, images…)", async () => {
      await runs.startRun(makeStoredRun());
      const results = Array.from({ length: 30 }, (_, seed) => makeVariedTestResult(seed));
      for (const result of results) {
        await runs.saveTestResult("run-1", { fingerprint: `f${result.index}`, result });
      }
      const read = (await runs.getTestResults("run-1")).map((stored) => stored.result);
      expect(read).toStrictEqual(structuredClone(results));
    });

    it("keeps unicode and large values intact", async () => {
      const input = 'Ünïcödé 😀 中文 עברית \u0000 nul, lone \ud800 surrogate, "quotes" \\ back';
      const stored = makeStoredTestResult(0, {
        input,
        actualOutput: "🧪".repeat(10_000),
        metricsData: [makeMetricData({ verboseLogs: "x".repeat(2_000_000) })],
      });
      await runs.startRun(makeStoredRun({ identifier: "ユニコード", config: { note: "café ☕" } }));
      await runs.saveTestResult("run-1", stored);
      expect(await runs.getTestResults("run-1")).toEqual([stored]);
      expect((await runs.getRun("ユニコード"))?.config).toEqual({ note: "café ☕" });
    });
  });

  describe("test results in pages", () => {
    beforeEach(() => {
      runs = current().runs;
    });

    const saveIndices = async (saved: number[]) => {
      await runs.startRun(makeStoredRun());
      for (const index of saved) await runs.saveTestResult("run-1", makeStoredTestResult(index));
    };

    it("gives the results after an index, at most a limit of them, in index order", async () => {
      await saveIndices([11, 0, 5, 2, 10, 1, 7]);
      const page = async (afterIndex: number, limit?: number) =>
        indices(
          await runs.getTestResults(
            "run-1",
            limit === undefined ? { afterIndex } : { afterIndex, limit },
          ),
        );
      expect(await page(-1, 3)).toEqual([0, 1, 2]);
      expect(await page(2, 3)).toEqual([5, 7, 10]);
      expect(await page(10, 3)).toEqual([11]);
      expect(await page(11, 3)).toEqual([]);
      // An index that was never saved: the page starts at the next saved one.
      expect(await page(3, 2)).toEqual([5, 7]);
      expect(await page(5)).toEqual([7, 10, 11]);
      expect(await page(-1, 0)).toEqual([]);
      expect(indices(await runs.getTestResults("run-1", { limit: 2 }))).toEqual([0, 1]);
      expect(await runs.getTestResults("run-1", { afterIndex: 1, limit: 1 })).toEqual([
        makeStoredTestResult(2),
      ]);
      expect(await runs.getTestResults("unknown", { afterIndex: -1, limit: 5 })).toEqual([]);
    });

    it("pages only the results changed after a version when given both", async () => {
      await saveIndices([0, 1, 2, 3, 4, 5]);
      const { version } = await runs.getTestResultsVersion("run-1");
      for (const index of [4, 1, 3]) {
        await runs.saveTestResult("run-1", makeStoredTestResult(index, { input: "again" }));
      }
      const changed = async (options: { afterIndex?: number; limit?: number }) =>
        indices(await runs.getTestResults("run-1", { changedAfter: version, ...options }));
      expect(await changed({ limit: 2 })).toEqual([1, 3]);
      expect(await changed({ afterIndex: 1, limit: 1 })).toEqual([3]);
      expect(await changed({ afterIndex: 3 })).toEqual([4]);
      expect(await changed({ afterIndex: 4, limit: 10 })).toEqual([]);
    });

    it("refuses an afterIndex or a limit that is not a usable integer", async () => {
      await saveIndices([0, 1]);
      for (const options of [
        { afterIndex: -2 },
        { afterIndex: 1.5 },
        { afterIndex: Number.NaN },
        { limit: -1 },
        { limit: 2.5 },
        { limit: Number.NaN },
        { limit: Number.POSITIVE_INFINITY },
        { afterIndex: 0, limit: -1 },
        { changedAfter: 0, limit: -1 },
      ]) {
        await expect(
          runs.getTestResults("run-1", options),
          JSON.stringify(options),
        ).rejects.toThrow(StoreError);
      }
    });

    it("reads a run of 2,500 results a page at a time with readTestResults", async () => {
      await runs.startRun(makeStoredRun());
      // Sparse indices: pages follow the last index read, not a count of results.
      const saved = Array.from({ length: 2_500 }, (_, position) => position * 3);
      for (let start = 0; start < saved.length; start += 100) {
        await Promise.all(
          saved
            .slice(start, start + 100)
            .map((index) => runs.saveTestResult("run-1", makeStoredTestResult(index))),
        );
      }
      const read = async (options?: { pageSize: number }) => {
        const found: StoredTestResult[] = [];
        for await (const stored of readTestResults(current(), "run-1", options)) {
          found.push(stored);
          // A store that ignores afterIndex gives the first page forever: stop and show it.
          if (found.length > saved.length) break;
        }
        return found;
      };
      const whole = await read();
      expect(indices(whole)).toEqual(saved);
      expect(whole[2_499]).toEqual(makeStoredTestResult(7_497));
      expect(indices(await read({ pageSize: 700 }))).toEqual(saved);
      expect(indices(await read({ pageSize: 2_500 }))).toEqual(saved);
    });
  });

  describe("secrets in runs and results", () => {
    // A key in no known format, as a provider would echo it: only its value identifies it.
    const key = "Zq8vLr2mXw4Tn6Pb0Hc5Jd7Kf9Gs1Ay3Ue";
    let forget: () => void = () => {};
    beforeEach(() => {
      runs = current().runs;
      forget = registerSecretValues([key]);
    });
    afterEach(() => forget());

    it("masks configured secret values in results, summaries and configurations", async () => {
      const echoed = `provider said: bad key ${key}`;
      await runs.startRun(makeStoredRun({ config: { note: echoed } }));
      await runs.saveTestResult(
        "run-1",
        makeStoredTestResult(0, {
          actualOutput: `my key is ${key}`,
          metricsData: [makeMetricData({ score: null, error: echoed, reason: null })],
        }),
      );
      await runs.finishRun({
        runId: "run-1",
        status: "completed",
        endedAt: "2025-01-01T10:05:00.000Z",
        summary: makeSummary({
          metrics: makeSummary().metrics.map((metric) => ({ ...metric, name: echoed })),
        }),
      });
      const results = await runs.getTestResults("run-1");
      const everything = JSON.stringify([
        await runs.getRun("run-1"),
        await runs.listRuns(),
        results,
        await runs.getTestResults("run-1", { afterIndex: -1, limit: 1 }),
      ]);
      expect(everything).not.toContain(key);
      expect(results[0]?.result).toMatchObject({
        actualOutput: "my key is ***",
        metricsData: [{ error: "provider said: bad key ***" }],
      });
    });
  });

  describe("isolation from callers", () => {
    beforeEach(() => {
      runs = current().runs;
    });

    it("is not changed by mutating what was saved or what was read", async () => {
      const run = makeStoredRun();
      const stored = makeStoredTestResult(0);
      await runs.startRun(run);
      await runs.saveTestResult("run-1", stored);
      run.config.judge = "changed";
      stored.result.input = "changed";
      const read = (await runs.getTestResults("run-1"))[0];
      if (read !== undefined) read.result.input = "changed again";
      const readRun = await runs.getRun("run-1");
      if (readRun !== null) readRun.config.judge = "changed again";
      const listed = (await runs.listRuns())[0];
      if (listed !== undefined) listed.config.judge = "changed in the list";

      expect((await runs.getRun("run-1"))?.config.judge).toBe("mock-judge");
      expect((await runs.getTestResults("run-1"))[0]?.result.input).toBe("question 0");
    });
  });
}
