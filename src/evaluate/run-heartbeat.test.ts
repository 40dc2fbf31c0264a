import { hostname } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunOwner } from "../store/run-store.ts";
import { RunHeartbeat } from "./run-heartbeat.ts";

/** A write the test ends by hand: what a slow store looks like. */
function deferred() {
  let resolve = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

function heartbeat(write: (owner: RunOwner) => Promise<void>, intervalMs = 15_000) {
  const warnings: string[] = [];
  const beat = new RunHeartbeat({ write, warn: (message) => warnings.push(message), intervalMs });
  return { beat, warnings };
}

describe("RunHeartbeat", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("names this process as the owner, heard from now", () => {
    vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
    const { beat } = heartbeat(async () => {});
    expect(beat.owner()).toEqual({
      pid: process.pid,
      hostname: hostname(),
      heartbeatAt: "2025-01-01T10:00:00.000Z",
    });
  });

  it("beats on the interval, and not after it stops", async () => {
    vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
    const beats: string[] = [];
    const { beat, warnings } = heartbeat(async (owner) => {
      beats.push(owner.heartbeatAt);
    });
    beat.start();
    beat.start(); // a second start adds no second timer
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(beats).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(beats).toEqual(["2025-01-01T10:00:15.000Z"]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(beats).toEqual([
      "2025-01-01T10:00:15.000Z",
      "2025-01-01T10:00:30.000Z",
      "2025-01-01T10:00:45.000Z",
    ]);
    await beat.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(beats).toHaveLength(3);
    expect(warnings).toEqual([]);
  });

  it("beats with a stored case only when the last beat is a second old or more", async () => {
    vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
    const beats: string[] = [];
    const { beat } = heartbeat(async (owner) => {
      beats.push(owner.heartbeatAt);
    });
    beat.owner(); // the owner written at the run's start
    vi.setSystemTime(new Date("2025-01-01T10:00:00.999Z"));
    beat.caseStored();
    await vi.advanceTimersByTimeAsync(0);
    expect(beats).toEqual([]);
    vi.setSystemTime(new Date("2025-01-01T10:00:01.000Z"));
    beat.caseStored();
    await vi.advanceTimersByTimeAsync(0);
    expect(beats).toEqual(["2025-01-01T10:00:01.000Z"]);
  });

  it("warns once of a failing write, and keeps beating", async () => {
    vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
    let attempts = 0;
    const { beat, warnings } = heartbeat(async () => {
      attempts += 1;
      throw new Error("disk full");
    });
    beat.start();
    await vi.advanceTimersByTimeAsync(45_000);
    expect(attempts).toBe(3);
    expect(warnings).toEqual([
      "Warning: the run's heartbeat could not be stored (later failures are not repeated): disk full",
    ]);
    await beat.stop();
  });

  it("keeps one beat in flight at a time: a slow store gets no queue of them", async () => {
    vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
    const writes: Array<ReturnType<typeof deferred>> = [];
    const { beat } = heartbeat(() => {
      const write = deferred();
      writes.push(write);
      return write.promise;
    });
    beat.start();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(writes).toHaveLength(1);
    // Three more intervals pass, and a case is stored, while the first write hangs.
    await vi.advanceTimersByTimeAsync(45_000);
    beat.caseStored();
    expect(writes).toHaveLength(1);
    writes[0]?.resolve();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(writes).toHaveLength(2);
    writes[1]?.resolve();
    await beat.stop();
  });

  it("stop waits for the beat in flight", async () => {
    vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
    const write = deferred();
    const { beat, warnings } = heartbeat(() => write.promise);
    beat.start();
    await vi.advanceTimersByTimeAsync(15_000);
    let stopped = false;
    const stopping = beat.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stopped).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    write.reject(new Error("connection reset"));
    await stopping;
    expect(stopped).toBe(true);
    // A beat that fails while the run stops is still only a warning: stop resolves.
    expect(warnings).toEqual([
      "Warning: the run's heartbeat could not be stored (later failures are not repeated): connection reset",
    ]);
  });
});
