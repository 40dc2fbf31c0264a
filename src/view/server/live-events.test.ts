import { describe, expect, it } from "vitest";
import { DASHBOARD_RUNS, dashboardOwner } from "../../../test/fixtures/dashboard-runs.ts";
import { useDashboards } from "../../../test/fixtures/dashboard-server.ts";
import { testResult } from "../../../test/fixtures/results.ts";
import { makeSummary } from "../../testing/store-contract.ts";
import type { CaseRow, RunRow } from "../api.ts";

const dashboard = useDashboards();

interface ReceivedEvent {
  type: string;
  id: string | null;
  data: unknown;
}

/** An event's data as a run row (`progress`, `end`). */
function runOf(event: ReceivedEvent | undefined): RunRow {
  expect(event).toBeDefined();
  return event?.data as RunRow;
}

/** Reads a server-sent event stream as it arrives. */
function openEvents(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const events: ReceivedEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    // Closed by the test at any time, even before the response arrives: an abort ends it.
    try {
      const response = await fetch(url, { signal: controller.signal, headers });
      expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
        let boundary = buffer.indexOf("\n\n");
        while (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf("\n\n");
          const fields = new Map<string, string>();
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line);
            const colon = line.indexOf(": ");
            if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 2));
          }
          const type = fields.get("event");
          if (type !== undefined) {
            events.push({
              type,
              id: fields.get("id") ?? null,
              data: JSON.parse(fields.get("data") ?? "null"),
            });
          }
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
    ended = true;
  })();
  return {
    events,
    comments,
    done,
    get ended() {
      return ended;
    },
    close: () => controller.abort(),
    async waitFor(predicate: (events: ReceivedEvent[]) => boolean): Promise<void> {
      for (let waited = 0; !predicate(events); waited += 5) {
        if (waited > 5000) throw new Error(`Timed out; events so far: ${JSON.stringify(events)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
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
