/** The store contract's sharded runs (`store.shards`): parts that shards write into one run. */
import { beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import type { StoreRuns, StoreShards } from "../store/run-store.ts";
import {
  makeRunOwner,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "./store-contract-data.ts";
import {
  type CurrentStore,
  requirePart,
  type StoreCapabilities,
} from "./store-contract-support.ts";

const shardOwner = (pid: number, heartbeatAt: string) =>
  makeRunOwner({ pid, hostname: `machine-${pid}`, heartbeatAt });

/** Declares the group "sharded runs", skipped for a store without `shards`. */
export function describeShardsContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe.skipIf(!capabilities.shards)("sharded runs", () => {
    let runs: StoreRuns;
    let shards: StoreShards;
    beforeEach(() => {
      runs = current().runs;
      shards = requirePart(current(), "shards");
    });

    const startPart = (index: number, options: { count?: number; pid?: number } = {}) =>
      shards.startRunPart({
        run: makeStoredRun({ id: "sharded", identifier: "nightly", owner: null }),
        part: {
          shard: { index, count: options.count ?? 3 },
          startedAt: `2025-01-01T10:0${index}:00.000Z`,
          owner: shardOwner(options.pid ?? index, `2025-01-01T10:0${index}:30.000Z`),
        },
      });

    it("creates the run with its first shard; the others join it and write into it", async () => {
      await startPart(2);
      await startPart(1);
      await runs.saveTestResult("sharded", makeStoredTestResult(5));
      await runs.saveTestResult("sharded", makeStoredTestResult(1));
      const run = await runs.getRun("nightly");
      expect(run).toMatchObject({ id: "sharded", identifier: "nightly", status: "running" });
      expect(run?.shards).toEqual({
        count: 3,
        parts: [1, 2].map((shard) => ({
          shard,
          status: "running",
          startedAt: `2025-01-01T10:0${shard}:00.000Z`,
          endedAt: null,
          summary: null,
          owner: shardOwner(shard, `2025-01-01T10:0${shard}:30.000Z`),
        })),
      });
      expect((await runs.getTestResults("sharded")).map((stored) => stored.result.index)).toEqual([
        1, 5,
      ]);
      expect((await runs.listRuns())[0]?.shards?.parts.map((part) => part.shard)).toEqual([1, 2]);
    });

    it("ends a shard's part alone, and the run as a whole only when told", async () => {
      await startPart(1);
      await startPart(2);
      const partSummary = makeSummary({
        testCases: { total: 1, passed: 1, failed: 0, unscored: 0 },
      });
      await shards.finishRunPart({
        runId: "sharded",
        status: "completed",
        endedAt: "2025-01-01T11:00:00.000Z",
        summary: partSummary,
        shard: 2,
      });
      const afterPart = await runs.getRun("sharded");
      expect(afterPart).toMatchObject({ status: "running", endedAt: null, summary: null });
      expect(afterPart?.shards?.parts[1]).toMatchObject({
        status: "completed",
        endedAt: "2025-01-01T11:00:00.000Z",
        summary: partSummary,
      });
      await runs.finishRun({
        runId: "sharded",
        status: "completed",
        endedAt: "2025-01-01T11:05:00.000Z",
        summary: makeSummary(),
      });
      expect(await runs.getRun("sharded")).toMatchObject({
        status: "completed",
        summary: makeSummary(),
        shards: { count: 3, parts: [{ status: "running" }, { status: "completed" }] },
      });
    });

    it("shows the owner of its stalest running part, else of its latest part", async () => {
      await startPart(1);
      await startPart(2);
      await shards.heartbeatRunPart({
        runId: "sharded",
        owner: shardOwner(1, "2025-01-01T12:00:00.000Z"),
        shard: 1,
      });
      const stalest = shardOwner(2, "2025-01-01T10:02:30.000Z");
      expect((await runs.getRun("sharded"))?.owner).toEqual(stalest);
      for (const shard of [1, 2]) {
        await shards.finishRunPart({
          runId: "sharded",
          status: "completed",
          endedAt: "2025-01-01T12:30:00.000Z",
          summary: makeSummary(),
          shard,
        });
      }
      expect((await runs.getRun("sharded"))?.owner).toEqual(stalest);
    });

    it("starts a shard run again afresh, and reopens a part and its run", async () => {
      await startPart(1);
      await runs.saveTestResult("sharded", makeStoredTestResult(0));
      const interrupted = {
        runId: "sharded",
        status: "interrupted" as const,
        endedAt: "2025-01-01T11:00:00.000Z",
        summary: makeSummary({ status: "interrupted" }),
      };
      await shards.finishRunPart({ ...interrupted, shard: 1 });
      await runs.finishRun(interrupted);
      await shards.reopenRunPart("sharded", 1);
      expect(await runs.getRun("sharded")).toMatchObject({
        status: "running",
        summary: null,
        shards: { parts: [{ shard: 1, status: "running", endedAt: null, summary: null }] },
      });
      await startPart(1, { pid: 99 });
      expect((await runs.getRun("sharded"))?.shards?.parts).toEqual([
        {
          shard: 1,
          status: "running",
          startedAt: "2025-01-01T10:01:00.000Z",
          endedAt: null,
          summary: null,
          owner: shardOwner(99, "2025-01-01T10:01:30.000Z"),
        },
      ]);
      expect(await runs.getTestResults("sharded")).toEqual([makeStoredTestResult(0)]);
    });

    it("refuses a shard of another split, an invalid shard, and a run of one process", async () => {
      await startPart(1);
      await expect(startPart(2, { count: 4 })).rejects.toThrow(/split into 3 shards, not 4/);
      await expect(startPart(0)).rejects.toThrow(StoreError);
      await expect(startPart(4)).rejects.toThrow(StoreError);
      await runs.startRun(makeStoredRun({ id: "single" }));
      await expect(
        shards.startRunPart({
          run: makeStoredRun({ id: "single" }),
          part: {
            shard: { index: 1, count: 2 },
            startedAt: "2025-01-01T10:00:00.000Z",
            owner: null,
          },
        }),
      ).rejects.toThrow(/id of its own/);
      expect((await runs.getRun("single"))?.shards).toBeUndefined();
    });

    it("refuses to end, reopen or beat a shard that never started", async () => {
      await startPart(1);
      const summary = makeSummary();
      const endedAt = "2025-01-01T11:00:00.000Z";
      await expect(
        shards.finishRunPart({ runId: "sharded", status: "completed", endedAt, summary, shard: 2 }),
      ).rejects.toThrow(/no shard 2/);
      await expect(shards.reopenRunPart("sharded", 3)).rejects.toThrow(/no shard 3/);
      await expect(
        shards.heartbeatRunPart({ runId: "sharded", owner: makeRunOwner(), shard: 2 }),
      ).rejects.toThrow(/no shard 2/);
      await expect(
        shards.heartbeatRunPart({ runId: "nope", owner: makeRunOwner(), shard: 1 }),
      ).rejects.toThrow(/no run with this id/);
    });

    it("stores an imported sharded run exactly as given", async () => {
      const parts = [1, 3].map((shard) => ({
        shard,
        status: "completed" as const,
        startedAt: "2025-01-01T10:00:00.000Z",
        endedAt: "2025-01-01T10:30:00.000Z",
        summary: makeSummary(),
        owner: shardOwner(shard, "2025-01-01T10:29:00.000Z"),
      }));
      const run = makeStoredRun({
        id: "imported",
        status: "completed",
        endedAt: "2025-01-01T10:31:00.000Z",
        summary: makeSummary(),
        owner: shardOwner(3, "2025-01-01T10:29:00.000Z"),
        shards: { count: 3, parts },
      });
      await runs.startRun(run);
      expect(await runs.getRun("imported")).toEqual(run);
    });
  });
}
