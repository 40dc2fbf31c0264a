// The stop signals reach the run through process events: here the listeners the run added are
// called as a signal would call them (no real signal is sent, and the listeners of other tests
// sharing this worker are left alone), with process.exitCode put back after each test.
// test/e2e/stop-signals.test.ts sends real signals to real processes.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answer } from "../../test/fixtures/judge-answers.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import type { RunnerEvent } from "../results/runner-events.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import {
  cancelOnInterrupt,
  interruptedExitCode,
  STOP_SIGNAL_NAMES,
  STOP_SIGNALS,
  type StopSignal,
} from "./cancel-on-interrupt.ts";
import { evaluate } from "./evaluate.ts";

let exitCodeBefore: typeof process.exitCode;
let listenersBefore: number[];
let present: Map<StopSignal, Set<unknown>>;
beforeEach(() => {
  exitCodeBefore = process.exitCode;
  listenersBefore = STOP_SIGNAL_NAMES.map((name) => process.listenerCount(name));
  present = new Map(STOP_SIGNAL_NAMES.map((name) => [name, new Set(process.listeners(name))]));
});
/** Delivers `name` to the listeners added since the test began, as the signal would. */
function deliver(name: StopSignal): void {
  for (const listener of process.listeners(name)) {
    if (!present.get(name)?.has(listener)) listener(name);
  }
}
afterEach(() => {
  process.exitCode = exitCodeBefore;
});
const listenerCounts = () => STOP_SIGNAL_NAMES.map((name) => process.listenerCount(name));

describe("cancelOnInterrupt", () => {
  for (const name of STOP_SIGNAL_NAMES) {
    it(`aborts the run on ${name}, sets exit code ${STOP_SIGNALS[name]} and lets a second ${name} through`, () => {
      const controller = new AbortController();
      const detach = cancelOnInterrupt({ controller, signal: undefined, handleInterrupt: true });
      expect(listenerCounts()).toEqual(listenersBefore.map((count) => count + 1));
      deliver(name);
      expect(controller.signal.aborted).toBe(true);
      expect((controller.signal.reason as Error).message).toBe(
        `Interrupted (${name === "SIGINT" ? "Ctrl-C" : name}).`,
      );
      expect(process.exitCode).toBe(STOP_SIGNALS[name]);
      expect(interruptedExitCode()).toBe(STOP_SIGNALS[name]);
      // Ours are gone: a second signal does what it would without the run (Node ends it).
      expect(listenerCounts()).toEqual(listenersBefore);
      detach();
      expect(listenerCounts()).toEqual(listenersBefore);
    });
  }

  it("leaves the exit code to a caller that passes its own signal, and the signals to the process with handleInterrupt: false", () => {
    const caller = new AbortController();
    const controller = new AbortController();
    const detach = cancelOnInterrupt({ controller, signal: caller.signal, handleInterrupt: true });
    process.exitCode = undefined;
    deliver("SIGTERM");
    expect(controller.signal.aborted).toBe(true);
    expect(process.exitCode).toBeUndefined();
    detach();
    const untouched = new AbortController();
    const none = cancelOnInterrupt({
      controller: untouched,
      signal: undefined,
      handleInterrupt: false,
    });
    expect(listenerCounts()).toEqual(listenersBefore);
    none();
  });
});

describe("evaluate() stopped by a signal", () => {
  for (const name of ["SIGTERM", "SIGHUP"] as const) {
    it(`on ${name}, stops dispatching, stores the run interrupted, says how to resume and exits ${STOP_SIGNALS[name]}`, async () => {
      const store = new MemoryRunStore();
      const judge = new MockJudge({
        answers: (call) => {
          // The signal comes while the second case is being judged.
          if (call.index === 2) deliver(name);
          return answer(call);
        },
      });
      const events: RunnerEvent[] = [];
      const result = await evaluate({
        testCases: Array.from({ length: 6 }, (_, index) => ({
          name: `case-${index}`,
          input: "q",
          actualOutput: `fine output ${index}`,
        })),
        metrics: [new ToxicityMetric({ model: judge })],
        identifier: "nightly",
        maxConcurrent: 1,
        store,
        display: "none",
        onProgress: (event) => events.push(event),
      });
      expect(result.summary.status).toBe("interrupted");
      expect(result.testResults.length).toBeLessThan(6);
      expect(judge.calls.length).toBeLessThan(12);
      expect((await store.runs.getRun("nightly"))?.status).toBe("interrupted");
      const end = events.find((event) => event.type === "run-end");
      expect(end?.type === "run-end" && end.message).toMatch(
        /^Run interrupted: \d\/6 test cases finished and stored\. Resume with evaluate\(\{ identifier: "nightly", resume: true/,
      );
      expect(process.exitCode).toBe(STOP_SIGNALS[name]);
      expect(listenerCounts()).toEqual(listenersBefore);
    });
  }
});
