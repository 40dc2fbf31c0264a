import { describe, expect, it } from "vitest";
import { DASHBOARD_RUNS, dashboardOwner, LIVE_PID } from "../../../test/fixtures/dashboard-runs.ts";
import { type TestDashboard, useDashboards } from "../../../test/fixtures/dashboard-server.ts";
import { openEvents, type ReceivedEvent } from "../../../test/fixtures/live-events.ts";
import { testResult } from "../../../test/fixtures/results.ts";
import type { StoredRun } from "../../store/run-store.ts";
import { makeSummary } from "../../testing/store-contract.ts";
import type { RunRow } from "../api.ts";
import type { CaseRow } from "../case-views.ts";

const dashboard = useDashboards();

/** An event's data as a run row (`progress`, `end`). */
function runOf(event: ReceivedEvent | undefined): RunRow {
  expect(event).toBeDefined();
  return event?.data as RunRow;
}

const { running, candidate } = DASHBOARD_RUNS;

describe("/api/runs/:run/events", () => {
  it("delivers a case saved while connected, the progress and spend, then the end", async () => {
    const { base, store } = await dashboard();
    const stream = openEvents(`${base}/api/runs/${running}/events`);
    await stream.waitFor((events) => events.length >= 1);
    const first = stream.events[0];
    expect(first?.type).toBe("progress");
    expect(runOf(first).cases).toMatchObject({ total: 10, passed: 1, failed: 1 });

    await store.runs.saveTestResult(running, {
      fingerprint: "f-5",
      result: testResult({ name: "arrives live", index: 5 }),
    });
    await stream.waitFor((events) => events.some((event) => event.type === "case"));
    const arrived = stream.events.find((event) => event.type === "case");
    expect(arrived?.data as CaseRow).toMatchObject({
      key: "5",
      name: "arrives live",
      position: 3,
      status: "passed",
    });
    expect(Number(arrived?.id)).toBe((await store.runs.getTestResultsVersion(running)).version);
    await stream.waitFor((events) =>
      events.some(
        (event) => event.type === "progress" && (event.data as RunRow).cases.passed === 2,
      ),
    );
    const progress = stream.events.filter((event) => event.type === "progress").at(-1);
    // Two cases of two metrics at 0.002 each, and the new one's metric.
    expect(runOf(progress).costUsd).toBeCloseTo(0.01, 10);

    await store.runs.finishRun({
      runId: running,
      status: "completed",
      endedAt: "2025-03-01T12:00:30.000Z",
      summary: makeSummary(),
    });
    await stream.done;
    expect(stream.ended).toBe(true);
    expect(stream.events.at(-1)?.type).toBe("end");
    expect(runOf(stream.events.at(-1)).status).toBe("completed");
  });

  it("first sends the cases saved after ?after= (or Last-Event-ID), so nothing between the page's read and the stream is lost", async () => {
    const { base, store } = await dashboard();
    const stream = openEvents(`${base}/api/runs/${running}/events?after=0`);
    await stream.waitFor((events) => events.filter((event) => event.type === "case").length >= 2);
    expect(
      stream.events
        .filter((event) => event.type === "case")
        .map((event) => (event.data as CaseRow).key),
    ).toEqual(["0", "1"]);
    stream.close();

    const { version } = await store.runs.getTestResultsVersion(running);
    await store.runs.saveTestResult(running, {
      fingerprint: "f-7",
      result: testResult({ index: 7 }),
    });
    const resumed = openEvents(`${base}/api/runs/${running}/events`, {
      "last-event-id": String(version),
    });
    await resumed.waitFor((events) => events.some((event) => event.type === "case"));
    expect(
      resumed.events
        .filter((event) => event.type === "case")
        .map((event) => (event.data as CaseRow).key),
    ).toEqual(["7"]);
    resumed.close();
  });

  it("ends at once for a run that is not running, and when a run's process dies", async () => {
    let alive = true;
    const { base, store } = await dashboard({ isProcessAlive: () => alive });
    const finished = openEvents(`${base}/api/runs/${candidate}/events`);
    await finished.done;
    expect(finished.events.map((event) => event.type)).toEqual(["progress", "end"]);

    const stream = openEvents(`${base}/api/runs/${running}/events`);
    await stream.waitFor((events) => events.length >= 1);
    alive = false;
    await stream.done;
    const end = stream.events.at(-1);
    expect(end?.type).toBe("end");
    expect(runOf(end).status).toBe("interrupted");
    expect((await store.runs.getRun(running))?.owner).toEqual(dashboardOwner(1001));
  });

  it("stops reading the store when the client goes away, and keeps an idle stream alive", async () => {
    const { base, store } = await dashboard({ seed: true });
    let reads = 0;
    const counting = await dashboard({
      seed: false,
      store: {
        getRun: (id) => store.runs.getRun(id),
        listRuns: (options) => store.runs.listRuns(options),
        getTestResults: (id, options) => store.runs.getTestResults(id, options),
        getTestResultsVersion: (id) => {
          reads += 1;
          return store.runs.getTestResultsVersion(id);
        },
        getCalibration: (id) => store.calibrations.getCalibration(id),
        listCalibrations: (options) => store.calibrations.listCalibrations(options),
      },
    });
    expect(base).not.toBe(counting.base);
    const stream = openEvents(`${counting.base}/api/runs/${running}/events`);
    await stream.waitFor(() => reads >= 5);
    stream.close();
    await stream.done;
    // The server notices the closed connection after at most a poll or two (longer on a busy
    // machine): wait until the reads stop, then check they stay stopped for many intervals.
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let settled = reads;
    for (let waited = 0; waited < 5000; waited += 100) {
      await pause(100);
      if (reads === settled) break;
      settled = reads;
    }
    await pause(300);
    expect(reads).toBe(settled);
  });
});

describe("/api/runs/:run/events of a verdict test run --watch session", () => {
  const SESSION = "watch-20250301-120000-beef";
  /** A run of the session, owned by the (alive) dashboard test's live process. */
  function watchRun(id: string, startedAt: string): StoredRun {
    return {
      id,
      identifier: SESSION,
      status: "running",
      startedAt,
      endedAt: null,
      config: { runner: "vitest", command: "verdict test run", watch: true },
      summary: null,
      owner: dashboardOwner(LIVE_PID),
    };
  }
  const FIRST = "11111111-0000-4000-8000-000000000001";
  const SECOND = "22222222-0000-4000-8000-000000000002";
  const finish = (store: TestDashboard["store"], runId: string) =>
    store.runs.finishRun({
      runId,
      status: "completed",
      endedAt: "2025-03-01T12:00:20.000Z",
      summary: makeSummary(),
    });

  it("follows the session's latest run: waiting once it ends, then the next run, then closes", async () => {
    const { base, store } = await dashboard();
    await store.runs.startRun(watchRun(FIRST, "2025-03-01T12:00:10.000Z"));
    const stream = openEvents(`${base}/api/runs/${FIRST}/events`);
    await stream.waitFor((events) => events.length >= 1);
    expect(runOf(stream.events[0]).watchSession).toBe("watching");

    await finish(store, FIRST);
    await stream.waitFor((events) => events.some((event) => event.type === "waiting"));
    const waiting = stream.events.find((event) => event.type === "waiting");
    expect(runOf(waiting)).toMatchObject({ id: FIRST, status: "completed" });
    expect(stream.ended).toBe(false);
    expect(stream.events.some((event) => event.type === "end")).toBe(false);

    // The session re-runs after a save: its next run is stored under the same identifier.
    await store.runs.startRun(watchRun(SECOND, "2025-03-01T12:00:30.000Z"));
    await stream.done;
    const last = stream.events.at(-1);
    expect(last?.type).toBe("next");
    expect(runOf(last)).toMatchObject({ id: SECOND, status: "running", watchSession: "watching" });
    expect(stream.events.filter((event) => event.type === "waiting")).toHaveLength(1);
  });

  it("ends for an older run of the session, and when the session's process is gone", async () => {
    let alive = true;
    const { base, store } = await dashboard({ isProcessAlive: () => alive });
    await store.runs.startRun(watchRun(FIRST, "2025-03-01T12:00:10.000Z"));
    await finish(store, FIRST);
    await store.runs.startRun(watchRun(SECOND, "2025-03-01T12:00:30.000Z"));
    await finish(store, SECOND);

    // A page opened on an earlier run stays on it.
    const older = openEvents(`${base}/api/runs/${FIRST}/events`);
    await older.done;
    expect(older.events.map((event) => event.type)).toEqual(["progress", "end"]);

    const latest = openEvents(`${base}/api/runs/${SECOND}/events`);
    await latest.waitFor((events) => events.some((event) => event.type === "waiting"));
    alive = false;
    await latest.done;
    const end = latest.events.at(-1);
    expect(end?.type).toBe("end");
    expect(runOf(end)).toMatchObject({ id: SECOND, watchSession: "ended" });
  });

  it("does not follow a run stored outside a watch session to a newer run of its identifier", async () => {
    const { base, store } = await dashboard();
    const plain = { ...watchRun(FIRST, "2025-03-01T12:00:10.000Z"), config: { runner: "vitest" } };
    await store.runs.startRun(plain);
    const stream = openEvents(`${base}/api/runs/${FIRST}/events`);
    await stream.waitFor((events) => events.length >= 1);
    expect(runOf(stream.events[0]).watchSession).toBeNull();
    await finish(store, FIRST);
    await stream.done;
    expect(stream.events.map((event) => event.type)).toEqual(["progress", "end"]);
  });
});
