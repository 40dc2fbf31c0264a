import { describe, expect, it } from "vitest";
import { testResult } from "../../test/fixtures/results.ts";
import type { RunnerEvent, RunReporter, RunStartEvent } from "../results/runner-events.ts";
import { RunEvents } from "./run-events.ts";

const runStart: RunStartEvent = {
  type: "run-start",
  runId: "run-1",
  identifier: null,
  totalTestCases: 2,
  resumedTestCases: 0,
  metricNames: ["Toxicity"],
  startedAt: "2025-01-01T10:00:00.000Z",
};

function caseEnd(index: number): RunnerEvent {
  return {
    type: "test-case-end",
    runId: "run-1",
    result: testResult({ index }),
    fingerprint: `f${index}`,
    finished: index + 1,
    judgeCalls: 0,
    costUsd: 0,
  };
}

function recording() {
  const events: RunnerEvent[] = [];
  const reporter: RunReporter = { onEvent: (event) => events.push(event) };
  return { events, reporter };
}

function runEvents(options: {
  reporters: RunReporter[];
  deferEvents?: boolean;
  onProgress?: (event: RunnerEvent) => void;
}) {
  const warnings: string[] = [];
  const events = new RunEvents({
    reporters: options.reporters,
    onProgress: options.onProgress,
    deferEvents: options.deferEvents ?? false,
    warn: (message) => warnings.push(message),
  });
  return { events, warnings };
}

const fingerprints = (events: RunnerEvent[]) =>
  events.map((event) => (event.type === "test-case-end" ? event.fingerprint : event.type));

describe("RunEvents", () => {
  it("sends each event to every reporter, then to onProgress, as it comes", () => {
    const order: string[] = [];
    const first: RunReporter = { onEvent: (event) => order.push(`first ${event.type}`) };
    const second: RunReporter = { onEvent: (event) => order.push(`second ${event.type}`) };
    const { events } = runEvents({
      reporters: [first, second],
      onProgress: (event) => order.push(`progress ${event.type}`),
    });
    expect(events.announced).toBe(true);
    events.announce(runStart);
    events.emit(caseEnd(0));
    expect(order).toEqual([
      "first run-start",
      "second run-start",
      "progress run-start",
      "first test-case-end",
      "second test-case-end",
      "progress test-case-end",
    ]);
  });

  it("with deferEvents, holds every event until the run is announced, then sends them after run-start", () => {
    const { events: received, reporter } = recording();
    const progress: RunnerEvent[] = [];
    const { events } = runEvents({
      reporters: [reporter],
      deferEvents: true,
      onProgress: (event) => progress.push(event),
    });
    events.emit(caseEnd(0));
    events.emit(caseEnd(1));
    expect(events.announced).toBe(false);
    expect(received).toEqual([]);
    expect(progress).toEqual([]);

    events.announce(runStart);
    expect(events.announced).toBe(true);
    expect(fingerprints(received)).toEqual(["run-start", "f0", "f1"]);
    expect(received[0]).toBe(runStart);
    expect(fingerprints(progress)).toEqual(["run-start", "f0", "f1"]);

    // Once announced, events go straight through.
    events.emit(caseEnd(2));
    expect(fingerprints(received)).toEqual(["run-start", "f0", "f1", "f2"]);
  });

  it("warns once of a reporter that throws, and still sends it the later events", () => {
    const { events: received, reporter } = recording();
    let calls = 0;
    const broken: RunReporter = {
      onEvent: () => {
        calls += 1;
        throw new Error("disk full");
      },
    };
    const progress: RunnerEvent[] = [];
    const { events, warnings } = runEvents({
      reporters: [broken, reporter],
      onProgress: (event) => progress.push(event),
    });
    events.announce(runStart);
    events.emit(caseEnd(0));
    events.emit(caseEnd(1));
    expect(calls).toBe(3);
    expect(warnings).toEqual([
      "Warning: reporter #1 failed (later failures are not repeated): disk full",
    ]);
    // The reporters after it and onProgress get every event.
    expect(fingerprints(received)).toEqual(["run-start", "f0", "f1"]);
    expect(fingerprints(progress)).toEqual(["run-start", "f0", "f1"]);
  });

  it("names a failing reporter by its class, and a failing onProgress as such, each warned once", () => {
    class UploadReporter implements RunReporter {
      onEvent(): void {
        throw new Error("upload refused");
      }
    }
    const { events, warnings } = runEvents({
      reporters: [new UploadReporter()],
      onProgress: () => {
        throw new Error("progress bar gone");
      },
    });
    events.announce(runStart);
    events.emit(caseEnd(0));
    expect(warnings).toEqual([
      "Warning: reporter UploadReporter failed (later failures are not repeated): upload refused",
      "Warning: onProgress failed (later failures are not repeated): progress bar gone",
    ]);
  });

  it("sends nothing more to a muted reporter, and the others go on", () => {
    const muted = recording();
    const kept = recording();
    const { events } = runEvents({ reporters: [muted.reporter, kept.reporter] });
    events.announce(runStart);
    events.mute([muted.reporter]);
    events.emit(caseEnd(0));
    expect(fingerprints(muted.events)).toEqual(["run-start"]);
    expect(fingerprints(kept.events)).toEqual(["run-start", "f0"]);
  });

  it("mutes reporters whose events are still held, before the run is announced", () => {
    const muted = recording();
    const kept = recording();
    const { events } = runEvents({ reporters: [muted.reporter, kept.reporter], deferEvents: true });
    events.emit(caseEnd(0));
    events.mute([muted.reporter]);
    events.announce(runStart);
    expect(muted.events).toEqual([]);
    expect(fingerprints(kept.events)).toEqual(["run-start", "f0"]);
  });
});
