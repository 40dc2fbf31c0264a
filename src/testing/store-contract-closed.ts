/** The store contract once a store is closed: every call fails with a `StoreError`. */
import { describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import {
  makeCalibrationReport,
  makeRunOwner,
  makeStoredJudgeBatch,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "./store-contract-data.ts";
import {
  type CurrentStore,
  requirePart,
  type StoreCapabilities,
  textAnswer,
} from "./store-contract-support.ts";

/** Declares the group "once closed": each part the store has, called after `close()`. */
export function describeClosedStoreContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe("once closed", () => {
    it("rejects every call of its runs with a StoreError, and closing again is harmless", async () => {
      const store = current();
      const { runs } = store;
      await runs.startRun(makeStoredRun());
      await store.close();
      await store.close();
      await expect(runs.getRun("run-1")).rejects.toThrow(StoreError);
      await expect(runs.listRuns()).rejects.toThrow(/closed/);
      await expect(runs.startRun(makeStoredRun({ id: "run-2" }))).rejects.toThrow(StoreError);
      await expect(runs.saveTestResult("run-1", makeStoredTestResult(0))).rejects.toThrow(
        StoreError,
      );
      await expect(runs.getTestResults("run-1")).rejects.toThrow(StoreError);
      await expect(runs.getTestResults("run-1", { afterIndex: -1, limit: 10 })).rejects.toThrow(
        StoreError,
      );
      await expect(runs.getTestResultsVersion("run-1")).rejects.toThrow(StoreError);
      await expect(runs.reopenRun("run-1")).rejects.toThrow(StoreError);
      await expect(runs.heartbeatRun({ runId: "run-1", owner: makeRunOwner() })).rejects.toThrow(
        StoreError,
      );
      await expect(
        runs.finishRun({
          runId: "run-1",
          status: "completed",
          endedAt: "2025-01-01T10:05:00.000Z",
          summary: makeSummary(),
        }),
      ).rejects.toThrow(StoreError);
    });

    it("closes through Symbol.asyncDispose, as `await using` does", async () => {
      const store = current();
      await store.runs.startRun(makeStoredRun());
      await store[Symbol.asyncDispose]();
      await expect(store.runs.getRun("run-1")).rejects.toThrow(StoreError);
    });

    it.skipIf(!capabilities.shards)("rejects every call of its shards", async () => {
      const store = current();
      const shards = requirePart(store, "shards");
      await store.close();
      await expect(
        shards.startRunPart({
          run: makeStoredRun({ id: "sharded" }),
          part: {
            shard: { index: 1, count: 2 },
            startedAt: "2025-01-01T10:00:00.000Z",
            owner: null,
          },
        }),
      ).rejects.toThrow(StoreError);
      await expect(shards.reopenRunPart("sharded", 1)).rejects.toThrow(StoreError);
      await expect(
        shards.heartbeatRunPart({ runId: "sharded", owner: makeRunOwner(), shard: 1 }),
      ).rejects.toThrow(StoreError);
      await expect(
        shards.finishRunPart({
          runId: "sharded",
          status: "completed",
          endedAt: "2025-01-01T10:05:00.000Z",
          summary: makeSummary(),
          shard: 1,
        }),
      ).rejects.toThrow(StoreError);
    });

    it.skipIf(!capabilities.calibrations)("rejects every call of its calibrations", async () => {
      const store = current();
      const calibrations = requirePart(store, "calibrations");
      await store.close();
      await expect(calibrations.saveCalibration(makeCalibrationReport())).rejects.toThrow(
        StoreError,
      );
      await expect(calibrations.getCalibration("calibration-1")).rejects.toThrow(StoreError);
      await expect(calibrations.listCalibrations()).rejects.toThrow(StoreError);
    });

    it.skipIf(!capabilities.judgeCache)("rejects every call of its judge cache", async () => {
      const store = current();
      const cache = requirePart(store, "judgeCache");
      await store.close();
      await expect(cache.get("key")).rejects.toThrow(StoreError);
      await expect(cache.set("key", textAnswer("t"))).rejects.toThrow(StoreError);
      if (cache.entries !== undefined) {
        await expect(cache.entries({ limit: 1 })).rejects.toThrow(StoreError);
      }
    });

    it.skipIf(!capabilities.judgeBatches)("rejects every call of its judge batches", async () => {
      const store = current();
      const batches = requirePart(store, "judgeBatches");
      await store.close();
      await expect(batches.listOpen()).rejects.toThrow(StoreError);
      await expect(batches.save(makeStoredJudgeBatch())).rejects.toThrow(StoreError);
      if (batches.list !== undefined) {
        await expect(batches.list()).rejects.toThrow(StoreError);
      }
    });
  });
}
