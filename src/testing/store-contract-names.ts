/**
 * The store contract's names: the ids, identifiers and metric names a store keeps as text may
 * not hold NUL (PostgreSQL's text refuses it), so every store refuses them alike.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import type { Store } from "../store/run-store.ts";
import {
  makeCalibrationReport,
  makeStoredRun,
  makeStoredTestResult,
} from "./store-contract-data.ts";
import {
  type CurrentStore,
  requirePart,
  type StoreCapabilities,
} from "./store-contract-support.ts";

/** Declares the group "names holding NUL" of the store contract. */
export function describeNamesContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe("names holding NUL", () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it("refuses a run whose id or identifier holds NUL with a ConfigError, storing nothing", async () => {
      for (const run of [
        makeStoredRun({ id: "run\u0000-1" }),
        makeStoredRun({ identifier: "nightly\u0000" }),
      ]) {
        const starting = store.runs.startRun(run);
        await expect(starting).rejects.toThrow(ConfigError);
        await expect(starting).rejects.toThrow(/NUL.*remove it/);
      }
      expect(await store.runs.listRuns()).toEqual([]);
      await store.runs.startRun(makeStoredRun({ identifier: "nightly" }));
      await store.runs.saveTestResult("run-1", makeStoredTestResult(0, { name: "a\u0000b" }));
      expect((await store.runs.getTestResults("run-1"))[0]?.result.name).toBe("a\u0000b");
    });

    it.skipIf(!capabilities.shards)("refuses a shard of a run whose id holds NUL", async () => {
      const shards = requirePart(store, "shards");
      await expect(
        shards.startRunPart({
          run: makeStoredRun({ id: "run\u0000-1" }),
          part: {
            shard: { index: 1, count: 2 },
            startedAt: "2025-01-01T10:00:00.000Z",
            owner: null,
          },
        }),
      ).rejects.toThrow(ConfigError);
      expect(await store.runs.listRuns()).toEqual([]);
    });

    it.skipIf(!capabilities.calibrations)(
      "refuses a calibration whose id, run id or metric name holds NUL",
      async () => {
        const calibrations = requirePart(store, "calibrations");
        await store.runs.startRun(makeStoredRun());
        const base = makeCalibrationReport();
        for (const report of [
          makeCalibrationReport({ id: "calibration\u0000" }),
          makeCalibrationReport({ runId: "run-1\u0000" }),
          makeCalibrationReport({ metric: { ...base.metric, name: "Toxicity\u0000" } }),
        ]) {
          await expect(calibrations.saveCalibration(report)).rejects.toThrow(ConfigError);
        }
        expect(await calibrations.listCalibrations()).toEqual([]);
      },
    );
  });
}
