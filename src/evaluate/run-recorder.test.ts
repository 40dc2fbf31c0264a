import { hostname } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answer } from "../../test/fixtures/judge-answers.ts";
import { testResult } from "../../test/fixtures/results.ts";
import { StoreError } from "../errors/store-error.ts";
import { BiasMetric } from "../metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import type { RunnerEvent, RunReporter } from "../results/runner-events.ts";
import { emptySpending, spendingOfResults } from "../results/spending.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { evaluate } from "./evaluate.ts";
import { RunRecorder, type RunRecorderOptions } from "./run-recorder.ts";

function recording() {
  const events: RunnerEvent[] = [];
  const reporter: RunReporter = { onEvent: (event) => events.push(event) };
  return { events, reporter };
}

function open(overrides: Partial<RunRecorderOptions> = {}) {
  const warnings: string[] = [];
  const recorder = RunRecorder.open({
    store: new MemoryRunStore(),
    env: {},
    identifier: "nightly",
    reporters: [],
    onStoreFailure: "stop",
    warn: (message) => warnings.push(message),
    ...overrides,
  });
  return { recorder, warnings };
}

const spent = { judgeCalls: 0, costUsd: 0 };

describe("RunRecorder", () => {
  it("stores the run, each case as it finishes, and the summary at the end", () => {
    const store = new MemoryRunStore();
    const { events, reporter } = recording();
    const { recorder } = open({ store, reporters: [reporter] });
    recorder.start({ config: { repeat: 1 } });
    recorder.announce({ totalTestCases: 2, resumedTestCases: 0, metricNames: ["Toxicity"] });
    recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
    expect(store.getTestResults(recorder.runId).map((stored) => stored.fingerprint)).toEqual([
      "f1",
    ]);
    const result = recorder.finish({
      status: "completed",
      testResults: [testResult({ index: 1 })],
      total: 2,
      spending: emptySpending(),
      message: null,
    });
    expect(store.getRun("nightly")).toMatchObject({ status: "completed", config: { repeat: 1 } });
    expect(result.summary.testCases).toEqual({
      total: 2,
      passed: 1,
      failed: 0,
      unscored: 1,
      errored: 0,
    });
    expect(events.map((event) => event.type)).toEqual(["run-start", "test-case-end", "run-end"]);
  });

  it("isolates a failing reporter: warned once, still called, and the others and the store go on", () => {
    const store = new MemoryRunStore();
    const { events, reporter } = recording();
    let calls = 0;
    const broken: RunReporter = {
      onEvent: () => {
        calls += 1;
        throw new Error("disk full");
      },
    };
    const { recorder, warnings } = open({ store, reporters: [broken, reporter] });
    recorder.start({ config: {} });
    recorder.announce({ totalTestCases: 2, resumedTestCases: 0, metricNames: [] });
    recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
    recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
    // run-start and both cases: a reporter that failed once still gets every later event.
    expect(calls).toBe(3);
    expect(warnings).toEqual([
      "Warning: reporter #1 failed (later failures are not repeated): disk full",
    ]);
    expect(events.filter((event) => event.type === "test-case-end")).toHaveLength(2);
    expect(store.getTestResults(recorder.runId)).toHaveLength(2);
  });

  it("holds events until the run is announced, with deferEvents", () => {
    const { events, reporter } = recording();
    const { recorder } = open({ reporters: [reporter], deferEvents: true });
    recorder.start({ config: {} });
    recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
    expect(events).toEqual([]);
    recorder.announce({ totalTestCases: 5, resumedTestCases: 0, metricNames: [] });
    expect(events.map((event) => event.type)).toEqual(["run-start", "test-case-end"]);
    expect(events[0]).toMatchObject({ totalTestCases: 5 });
  });

  it("on a store that breaks mid-run: stops with onStoreFailure 'stop', goes on without it with 'continue'", () => {
    const breaking = () => {
      const store = new MemoryRunStore();
      store.saveTestResult = () => {
        throw new StoreError("The disk is full.");
      };
      return store;
    };
    const stopping = open({ store: breaking() }).recorder;
    stopping.start({ config: {} });
    expect(() => stopping.recordCase({ result: testResult(), fingerprint: "f", spent })).toThrow(
      "The disk is full.",
    );

    const { recorder, warnings } = open({ store: breaking(), onStoreFailure: "continue" });
    recorder.start({ config: {} });
    recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
    recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
    expect(warnings).toEqual(["Warning: The disk is full. The rest of the run is not stored."]);
  });

  it("resumes: reuses the stored results whose fingerprint still matches, and does not store them again", () => {
    const store = new MemoryRunStore();
    const first = open({ store }).recorder;
    first.start({ config: {} });
    first.recordCase({ result: testResult({ index: 0, name: "kept" }), fingerprint: "a", spent });
    first.recordCase({
      result: testResult({ index: 1, name: "changed" }),
      fingerprint: "b",
      spent,
    });
    first.finish({
      status: "interrupted",
      testResults: [],
      total: 3,
      spending: emptySpending(),
      message: null,
    });

    const { events, reporter } = recording();
    const second = open({ store, resume: true, reporters: [reporter] }).recorder;
    const reused = second.start({ config: {}, fingerprints: ["a", "b-changed", "c"] });
    expect(second.runId).toBe(first.runId);
    expect([...reused.keys()]).toEqual([0]);
    const saved: string[] = [];
    const save = store.saveTestResult.bind(store);
    store.saveTestResult = (runId, stored) => {
      saved.push(stored.fingerprint);
      save(runId, stored);
    };
    second.announce({ totalTestCases: 3, resumedTestCases: 1, metricNames: [] });
    second.recordCase({ result: reused.get(0) ?? testResult(), fingerprint: "a", spent });
    second.recordCase({ result: testResult({ index: 1 }), fingerprint: "b-changed", spent });
    expect(saved).toEqual(["b-changed"]);
    expect(
      events
        .filter((event) => event.type === "test-case-end")
        .map((event) => event.type === "test-case-end" && event.finished),
    ).toEqual([2, 3]);
  });
});

describe("counters gathered from results (Vitest, merge) equal the scheduler's (evaluate)", () => {
  it("counts shared calls as shared and cached answers as cache hits, not one as the other", async () => {
    const store = new MemoryRunStore();
    const judge = new MockJudge({ answers: answer, latencyMs: 5 });
    // Toxicity and Bias ask the same opinion prompt: one of the two is shared in flight.
    const run = (testCases: Array<{ input: string; actualOutput: string }>) =>
      evaluate({
        testCases,
        metrics: [new ToxicityMetric({ model: judge }), new BiasMetric({ model: judge })],
        store,
        display: "none",
        handleInterrupt: false,
      });
    const cases = [
      { input: "q", actualOutput: "a nasty answer" },
      { input: "q", actualOutput: "a fine answer" },
    ];
    const first = await run(cases);
    // The second run meets the first one's answers in the cache, and one new case.
    const second = await run([...cases, { input: "q", actualOutput: "another nasty answer" }]);
    for (const result of [first, second]) {
      const { durationMs, status, metrics, testCases, judges, ...counted } = result.summary;
      expect(spendingOfResults(result.testResults)).toEqual(counted);
    }
    expect(first.summary.sharedCalls).toBeGreaterThan(0);
    expect(first.summary.cacheHits).toBe(0);
    expect(second.summary.cacheHits).toBeGreaterThan(0);
    expect(second.summary.sharedCalls).toBeGreaterThan(0);
  });

  describe("heartbeat", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    const owner = (at: string) => ({ pid: process.pid, hostname: hostname(), heartbeatAt: at });

    it("records its owner at start, beats while open, and stops when the run ends", () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
      const store = new MemoryRunStore();
      const { recorder } = open({ store, heartbeatIntervalMs: 15_000 });
      recorder.start({ config: {} });
      expect(store.getRun("nightly")?.owner).toEqual(owner("2025-01-01T10:00:00.000Z"));
      vi.advanceTimersByTime(14_999);
      expect(store.getRun("nightly")?.owner?.heartbeatAt).toBe("2025-01-01T10:00:00.000Z");
      vi.advanceTimersByTime(1);
      expect(store.getRun("nightly")?.owner?.heartbeatAt).toBe("2025-01-01T10:00:15.000Z");
      vi.advanceTimersByTime(30_000);
      expect(store.getRun("nightly")?.owner?.heartbeatAt).toBe("2025-01-01T10:00:45.000Z");
      recorder.finish({
        status: "completed",
        testResults: [],
        total: 0,
        spending: emptySpending(),
        message: null,
      });
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(60_000);
      expect(store.getRun("nightly")?.owner?.heartbeatAt).toBe("2025-01-01T10:00:45.000Z");
    });

    it("beats with a stored case, at most once a second", () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
      const store = new MemoryRunStore();
      const { recorder } = open({ store });
      recorder.start({ config: {} });
      recorder.announce({ totalTestCases: 3, resumedTestCases: 0, metricNames: [] });
      vi.setSystemTime(new Date("2025-01-01T10:00:05.000Z"));
      recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
      expect(store.getRun("nightly")?.owner?.heartbeatAt).toBe("2025-01-01T10:00:05.000Z");
      vi.setSystemTime(new Date("2025-01-01T10:00:05.500Z"));
      recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
      expect(store.getRun("nightly")?.owner?.heartbeatAt).toBe("2025-01-01T10:00:05.000Z");
      vi.setSystemTime(new Date("2025-01-01T10:00:06.000Z"));
      recorder.recordCase({ result: testResult({ index: 2 }), fingerprint: "f2", spent });
      expect(store.getRun("nightly")?.owner?.heartbeatAt).toBe("2025-01-01T10:00:06.000Z");
      recorder.close();
      expect(vi.getTimerCount()).toBe(0);
    });

    it("takes over a resumed run's ownership", () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T11:00:00.000Z") });
      const store = new MemoryRunStore();
      store.startRun({
        id: "earlier",
        identifier: "nightly",
        status: "running",
        startedAt: "2025-01-01T10:00:00.000Z",
        endedAt: null,
        config: {},
        summary: null,
        owner: { pid: 999_999, hostname: "elsewhere", heartbeatAt: "2025-01-01T10:00:10.000Z" },
      });
      const { recorder } = open({ store, resume: true });
      recorder.start({ config: {} });
      expect(store.getRun("nightly")).toMatchObject({
        id: "earlier",
        status: "running",
        owner: owner("2025-01-01T11:00:00.000Z"),
      });
      recorder.close();
    });

    it("warns once when a heartbeat cannot be stored, and the run goes on", () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
      const store = new MemoryRunStore();
      const { recorder, warnings } = open({ store });
      recorder.start({ config: {} });
      store.heartbeatRun = () => {
        throw new StoreError("disk full");
      };
      vi.advanceTimersByTime(45_000);
      expect(warnings).toEqual([
        "Warning: the run's heartbeat could not be stored (later failures are not repeated): disk full",
      ]);
      recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
      expect(store.getTestResults(recorder.runId)).toHaveLength(1);
      recorder.close();
    });
  });
});
