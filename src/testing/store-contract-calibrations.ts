/** The store contract's calibration reports (`store.calibrations`), each linked to its run. */
import { beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import type { StoreCalibrations } from "../store/run-store.ts";
import { makeCalibrationReport, makeStoredRun } from "./store-contract-data.ts";
import {
  type CurrentStore,
  requirePart,
  type StoreCapabilities,
} from "./store-contract-support.ts";

/** Declares the group "calibrations", skipped for a store without `calibrations`. */
export function describeCalibrationsContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe.skipIf(!capabilities.calibrations)("calibrations", () => {
    let calibrations: StoreCalibrations;
    beforeEach(async () => {
      const store = current();
      calibrations = requirePart(store, "calibrations");
      await store.runs.startRun(makeStoredRun());
      await store.runs.startRun(makeStoredRun({ id: "run-2" }));
    });

    it("returns a saved calibration by id, exactly as given, and null for an unknown id", async () => {
      const report = makeCalibrationReport();
      await calibrations.saveCalibration(report);
      expect(await calibrations.getCalibration("calibration-1")).toEqual(report);
      expect(await calibrations.getCalibration("calibration-2")).toBeNull();
      expect(await calibrations.getCalibration("run-1")).toBeNull();
    });

    it("lists calibrations newest first, by time then by saving order, of one run or all", async () => {
      const at = (id: string, runId: string, createdAt: string) =>
        calibrations.saveCalibration(makeCalibrationReport({ id, runId, createdAt }));
      await at("old", "run-1", "2025-01-01T09:00:00.000Z");
      await at("first-at-ten", "run-2", "2025-01-01T10:00:00.000Z");
      await at("second-at-ten", "run-1", "2025-01-01T10:00:00.000Z");
      await at("newest", "run-2", "2025-01-02T08:00:00.000Z");
      const ids = async (options?: { runId?: string; limit?: number }) =>
        (await calibrations.listCalibrations(options)).map((report) => report.id);
      expect(await ids()).toEqual(["newest", "second-at-ten", "first-at-ten", "old"]);
      expect(await ids({ runId: "run-1" })).toEqual(["second-at-ten", "old"]);
      expect(await ids({ limit: 2 })).toEqual(["newest", "second-at-ten"]);
      expect(await ids({ runId: "run-2", limit: 1 })).toEqual(["newest"]);
      expect(await ids({ runId: "unknown" })).toEqual([]);
      expect(await ids({ limit: 0 })).toEqual([]);
    });

    it("refuses a calibration of an unknown run, a second one with the same id, or a bad limit", async () => {
      await expect(
        calibrations.saveCalibration(makeCalibrationReport({ runId: "nope" })),
      ).rejects.toThrow(/no run "nope"/);
      await calibrations.saveCalibration(makeCalibrationReport());
      await expect(
        calibrations.saveCalibration(makeCalibrationReport({ runId: "run-2" })),
      ).rejects.toThrow(/already exists/);
      expect((await calibrations.getCalibration("calibration-1"))?.runId).toBe("run-1");
      await expect(calibrations.listCalibrations({ limit: -1 })).rejects.toThrow(StoreError);
      await expect(calibrations.listCalibrations({ limit: 1.5 })).rejects.toThrow(
        /non-negative integer/,
      );
    });

    it("is not changed by mutating what was saved or what was read", async () => {
      const report = makeCalibrationReport();
      await calibrations.saveCalibration(report);
      report.metric.name = "changed";
      const read = await calibrations.getCalibration("calibration-1");
      if (read !== null) read.disagreements.length = 0;
      const listed = (await calibrations.listCalibrations())[0];
      if (listed !== undefined) listed.confusion.truePositive = 99;
      expect(await calibrations.getCalibration("calibration-1")).toEqual(makeCalibrationReport());
    });

    it("masks configured secret values in what it keeps", async () => {
      const key = "Yp3mQv8Lr2Xw6Tn4Bc0Hd5Jk7Fg9Sa1Ue";
      const forget = registerSecretValues([key]);
      try {
        const example = makeCalibrationReport().disagreements[0];
        await calibrations.saveCalibration(
          makeCalibrationReport({
            disagreements: example ? [{ ...example, actualOutput: `my key is ${key}` }] : [],
            unscored: [{ row: 2, line: 2, name: "row 2", error: `bad key ${key}` }],
          }),
        );
        const read = JSON.stringify([
          await calibrations.getCalibration("calibration-1"),
          await calibrations.listCalibrations(),
        ]);
        expect(read).not.toContain(key);
        expect((await calibrations.getCalibration("calibration-1"))?.unscored[0]?.error).toBe(
          "bad key ***",
        );
      } finally {
        forget();
      }
    });
  });
}
