/** The store contract's runs: headers, ends, reopening, lookups, listing, owners and heartbeats. */
import { beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import type { StoreRuns } from "../store/run-store.ts";
import {
  makeRunOwner,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "./store-contract-data.ts";
import type { CurrentStore } from "./store-contract-support.ts";

/** Declares the groups "runs" and "owner and heartbeat" of the store contract. */
export function describeRunsContract(current: CurrentStore): void {
  let runs: StoreRuns;

  describe("runs", () => {
    beforeEach(() => {
      runs = current().runs;
    });

    it("returns a started run by id, exactly as given", async () => {
      const run = makeStoredRun({ identifier: "nightly" });
      await runs.startRun(run);
      expect(await runs.getRun("run-1")).toEqual(run);
    });

    it("returns null for an unknown id or identifier", async () => {
      await runs.startRun(makeStoredRun({ identifier: "nightly" }));
      expect(await runs.getRun("nope")).toBeNull();
    });

    it("records the end of a run with its summary", async () => {
      await runs.startRun(makeStoredRun());
      const summary = makeSummary();
      await runs.finishRun({
        runId: "run-1",
        status: "completed",
        endedAt: "2025-01-01T10:05:00.000Z",
        summary,
      });
      expect(await runs.getRun("run-1")).toMatchObject({
        status: "completed",
        endedAt: "2025-01-01T10:05:00.000Z",
        summary,
      });
    });

    it("keeps a run stopped by its budget, with what it spent of it", async () => {
      await runs.startRun(makeStoredRun());
      const summary = makeSummary({
        status: "budget-exhausted",
        costUsd: 0.3912,
        budget: { maxCostUsd: 0.4, maxTokens: null, spentCostUsd: 0.3912, spentTokens: 120_345 },
      });
      await runs.finishRun({
        runId: "run-1",
        status: "budget-exhausted",
        endedAt: "2025-01-01T10:05:00.000Z",
        summary,
      });
      expect(await runs.getRun("run-1")).toMatchObject({ status: "budget-exhausted", summary });
      expect((await runs.listRuns({ limit: 1 }))[0]?.summary?.budget).toEqual(summary.budget);
    });

    it("reopens a finished run as running, keeping its results", async () => {
      await runs.startRun(makeStoredRun());
      await runs.saveTestResult("run-1", makeStoredTestResult(0));
      await runs.finishRun({
        runId: "run-1",
        status: "interrupted",
        endedAt: "2025-01-01T10:05:00.000Z",
        summary: makeSummary({ status: "interrupted" }),
      });
      await runs.reopenRun("run-1");
      expect(await runs.getRun("run-1")).toMatchObject({
        status: "running",
        endedAt: null,
        summary: null,
      });
      expect(await runs.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
    });

    it("finds the latest run with an identifier, by start time then by start order", async () => {
      const start = (id: string, identifier: string, day: string) =>
        runs.startRun(makeStoredRun({ id, identifier, startedAt: `2025-01-${day}T00:00:00.000Z` }));
      await start("a", "nightly", "02");
      await start("b", "nightly", "03");
      await start("c", "nightly", "01");
      await start("d", "other", "09");
      expect((await runs.getRun("nightly"))?.id).toBe("b");
      await start("e", "nightly", "03");
      expect((await runs.getRun("nightly"))?.id).toBe("e");
    });

    it("matches an id before an identifier", async () => {
      await runs.startRun(
        makeStoredRun({ id: "x", identifier: null, startedAt: "2025-01-01T00:00:00.000Z" }),
      );
      await runs.startRun(
        makeStoredRun({ id: "y", identifier: "x", startedAt: "2025-01-02T00:00:00.000Z" }),
      );
      expect((await runs.getRun("x"))?.id).toBe("x");
    });

    it("lists runs newest first, with an optional limit", async () => {
      await runs.startRun(makeStoredRun({ id: "old", startedAt: "2025-01-01T00:00:00.000Z" }));
      await runs.startRun(makeStoredRun({ id: "new", startedAt: "2025-03-01T00:00:00.000Z" }));
      await runs.startRun(makeStoredRun({ id: "mid", startedAt: "2025-02-01T00:00:00.000Z" }));
      await runs.startRun(
        makeStoredRun({ id: "mid-later", startedAt: "2025-02-01T00:00:00.000Z" }),
      );
      const ids = async (options?: { limit: number }) =>
        (await runs.listRuns(options)).map((run) => run.id);
      expect(await ids()).toEqual(["new", "mid-later", "mid", "old"]);
      expect(await ids({ limit: 2 })).toEqual(["new", "mid-later"]);
      expect(await ids({ limit: 0 })).toEqual([]);
    });

    it("lists nothing when empty", async () => {
      expect(await runs.listRuns()).toEqual([]);
    });

    it("refuses a second run with the same id", async () => {
      await runs.startRun(makeStoredRun());
      await expect(runs.startRun(makeStoredRun())).rejects.toThrow(StoreError);
      await expect(runs.startRun(makeStoredRun())).rejects.toThrow(/already exists/);
    });

    it("refuses to finish or reopen an unknown run", async () => {
      await expect(
        runs.finishRun({
          runId: "nope",
          status: "completed",
          endedAt: "2025-01-01T00:00:00.000Z",
          summary: makeSummary(),
        }),
      ).rejects.toThrow(StoreError);
      await expect(runs.reopenRun("nope")).rejects.toThrow(/no run with this id/);
    });

    it("refuses a negative or fractional list limit", async () => {
      await expect(runs.listRuns({ limit: -1 })).rejects.toThrow(StoreError);
      await expect(runs.listRuns({ limit: 1.5 })).rejects.toThrow(StoreError);
    });

    it("fails through the promise it returns, never by throwing at the call", async () => {
      let returned: Promise<void> | undefined;
      expect(() => {
        returned = runs.reopenRun("nope");
      }).not.toThrow();
      await expect(returned).rejects.toThrow(StoreError);
    });

    it("never stores API keys found in a run's configuration", async () => {
      await runs.startRun(
        makeStoredRun({
          config: {
            judge: {
              name: "gpt-4.1",
              apiKey: "sk-proj-abcdefghijklmnopqrstuvwxyz",
              maxTokens: 900,
            },
          },
        }),
      );
      expect((await runs.getRun("run-1"))?.config).toEqual({
        judge: { name: "gpt-4.1", apiKey: "***", maxTokens: 900 },
      });
    });
  });

  describe("owner and heartbeat", () => {
    beforeEach(() => {
      runs = current().runs;
    });

    it("returns the owner a run was started with, and null when none was given", async () => {
      const owner = makeRunOwner();
      await runs.startRun(makeStoredRun({ id: "owned", owner }));
      await runs.startRun(makeStoredRun({ id: "legacy", owner: null }));
      const { owner: _omitted, ...withoutOwner } = makeStoredRun({ id: "unspecified" });
      await runs.startRun(withoutOwner);
      expect((await runs.getRun("owned"))?.owner).toEqual(owner);
      expect((await runs.getRun("legacy"))?.owner).toBeNull();
      expect((await runs.getRun("unspecified"))?.owner).toBeNull();
      expect((await runs.listRuns()).find((run) => run.id === "owned")?.owner).toEqual(owner);
    });

    it("records each heartbeat, changing nothing else", async () => {
      await runs.startRun(makeStoredRun({ owner: makeRunOwner() }));
      await runs.saveTestResult("run-1", makeStoredTestResult(0));
      const later = makeRunOwner({ heartbeatAt: "2025-01-01T10:01:00.000Z" });
      await runs.heartbeatRun({ runId: "run-1", owner: later });
      expect(await runs.getRun("run-1")).toEqual(makeStoredRun({ owner: later }));
      expect(await runs.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
    });

    it("hands a reopened run to the process that resumes it", async () => {
      await runs.startRun(makeStoredRun({ owner: makeRunOwner({ pid: 111, hostname: "a" }) }));
      await runs.reopenRun("run-1");
      const resumer = makeRunOwner({ pid: 222, hostname: "b" });
      await runs.heartbeatRun({ runId: "run-1", owner: resumer });
      expect(await runs.getRun("run-1")).toMatchObject({ status: "running", owner: resumer });
    });

    it("keeps the owner of a finished run", async () => {
      const owner = makeRunOwner();
      await runs.startRun(makeStoredRun({ owner }));
      await runs.finishRun({
        runId: "run-1",
        status: "completed",
        endedAt: "2025-01-01T10:05:00.000Z",
        summary: makeSummary(),
      });
      expect(await runs.getRun("run-1")).toMatchObject({ status: "completed", owner });
    });

    it("refuses a heartbeat for an unknown run or with an unusable owner", async () => {
      await expect(runs.heartbeatRun({ runId: "nope", owner: makeRunOwner() })).rejects.toThrow(
        /no run with this id/,
      );
      await runs.startRun(makeStoredRun());
      for (const owner of [
        makeRunOwner({ pid: 0 }),
        makeRunOwner({ pid: 1.5 }),
        makeRunOwner({ hostname: "" }),
        makeRunOwner({ heartbeatAt: "yesterday" }),
      ]) {
        await expect(runs.heartbeatRun({ runId: "run-1", owner })).rejects.toThrow(StoreError);
      }
      expect((await runs.getRun("run-1"))?.owner).toBeNull();
    });
  });
}
