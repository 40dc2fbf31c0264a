import { hostname } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import type { Store } from "../../store/run-store.ts";
import { makeRunOwner, makeStoredRun } from "../../testing/store-contract.ts";
import { WatchHeartbeat } from "./watch-heartbeat.ts";

afterEach(() => {
  vi.useRealTimers();
});

const START = Date.parse("2025-01-01T10:01:00.000Z");

async function endedRun(store: Store, id: string): Promise<void> {
  await store.runs.startRun(
    makeStoredRun({ id, status: "completed", config: { watch: true }, owner: makeRunOwner() }),
  );
}

/** A heartbeat over a memory store, on fake timers from {@link START}; `warnings` as said. */
async function openHeartbeat(intervalMs: number) {
  vi.useFakeTimers({ now: START });
  const store = new MemoryRunStore();
  const warnings: string[] = [];
  const heartbeat = await WatchHeartbeat.open({
    store,
    env: {},
    cwd: "/project",
    warn: (message) => warnings.push(message),
    intervalMs,
  });
  return { store, warnings, heartbeat };
}

async function heartbeatOf(store: Store, id: string): Promise<string | undefined> {
  return (await store.runs.getRun(id))?.owner?.heartbeatAt;
}

describe("WatchHeartbeat", () => {
  it("beats for the latest run while the session waits, and not while a run goes", async () => {
    const { store, warnings, heartbeat } = await openHeartbeat(15_000);
    await endedRun(store, "run-1");
    await endedRun(store, "run-2");

    heartbeat.follow("run-1");
    await vi.advanceTimersByTimeAsync(0);
    // This process owns it now, heard from now.
    expect((await store.runs.getRun("run-1"))?.owner).toEqual({
      pid: process.pid,
      hostname: hostname(),
      heartbeatAt: new Date(START).toISOString(),
    });
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await heartbeatOf(store, "run-1")).toBe(new Date(START + 15_000).toISOString());

    // A run starts: its own heartbeat takes over.
    await heartbeat.pause();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await heartbeatOf(store, "run-1")).toBe(new Date(START + 15_000).toISOString());

    heartbeat.follow("run-2");
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await heartbeatOf(store, "run-2")).toBe(new Date(START + 90_000).toISOString());
    expect(await heartbeatOf(store, "run-1")).toBe(new Date(START + 15_000).toISOString());

    await heartbeat.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await heartbeatOf(store, "run-2")).toBe(new Date(START + 90_000).toISOString());
    expect(warnings).toEqual([]);
  });

  it("says once when a beat cannot be stored, and never stops the session", async () => {
    const { warnings, heartbeat } = await openHeartbeat(1_000);
    heartbeat.follow("no-such-run");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Warning: the run's heartbeat could not be stored/);
    await heartbeat.close();
  });
});
