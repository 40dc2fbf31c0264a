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

async function open(overrides: Partial<RunRecorderOptions> = {}) {
  const warnings: string[] = [];
  const recorder = await RunRecorder.open({
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

const finishing = {
  status: "completed",
  testResults: [],
  total: 0,
  spending: emptySpending(),
  message: null,
} as const;

describe("RunRecorder", () => {
  it("stores the run, each case as it finishes, and the summary at the end", async () => {
    const store = new MemoryRunStore();
    const { events, reporter } = recording();
    const { recorder } = await open({ store, reporters: [reporter] });
    await recorder.start({ config: { repeat: 1 } });
    recorder.announce({ totalTestCases: 2, resumedTestCases: 0, metricNames: ["Toxicity"] });
    await recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
    const stored = await store.runs.getTestResults(recorder.runId);
    expect(stored.map((entry) => entry.fingerprint)).toEqual(["f1"]);
    const result = await recorder.finish({
      status: "completed",
      testResults: [testResult({ index: 1 })],
      total: 2,
      spending: emptySpending(),
      message: null,
    });
    expect(await store.runs.getRun("nightly")).toMatchObject({
      status: "completed",
      config: { repeat: 1 },
    });
    expect(result.summary.testCases).toEqual({
      total: 2,
      passed: 1,
      failed: 0,
      unscored: 1,
      errored: 0,
    });
    expect(events.map((event) => event.type)).toEqual(["run-start", "test-case-end", "run-end"]);
  });

  it("isolates a failing reporter: warned once, still called, and the others and the store go on", async () => {
    const store = new MemoryRunStore();
    const { events, reporter } = recording();
    let calls = 0;
    const broken: RunReporter = {
      onEvent: () => {
        calls += 1;
        throw new Error("disk full");
      },
    };
    const { recorder, warnings } = await open({ store, reporters: [broken, reporter] });
    await recorder.start({ config: {} });
    recorder.announce({ totalTestCases: 2, resumedTestCases: 0, metricNames: [] });
    await recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
    await recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
    // run-start and both cases: a reporter that failed once still gets every later event.
    expect(calls).toBe(3);
    expect(warnings).toEqual([
      "Warning: reporter #1 failed (later failures are not repeated): disk full",
    ]);
    expect(events.filter((event) => event.type === "test-case-end")).toHaveLength(2);
    expect(await store.runs.getTestResults(recorder.runId)).toHaveLength(2);
  });

  it("holds events until the run is announced, with deferEvents", async () => {
    const { events, reporter } = recording();
    const { recorder } = await open({ reporters: [reporter], deferEvents: true });
    await recorder.start({ config: {} });
    await recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
    expect(events).toEqual([]);
    recorder.announce({ totalTestCases: 5, resumedTestCases: 0, metricNames: [] });
    expect(events.map((event) => event.type)).toEqual(["run-start", "test-case-end"]);
    expect(events[0]).toMatchObject({ totalTestCases: 5 });
  });

  describe("on a store that breaks mid-run", () => {
    const breaking = () => {
      const store = new MemoryRunStore();
      const saved: string[] = [];
      store.runs.saveTestResult = async (_runId, stored) => {
        saved.push(stored.fingerprint);
        throw new StoreError("The disk is full.");
      };
      return { store, saved };
    };

    it("with onStoreFailure 'stop': recordCase rejects with the StoreError, and the run ends with what was stored", async () => {
      const { store } = breaking();
      const { events, reporter } = recording();
      const { recorder, warnings } = await open({ store, reporters: [reporter] });
      await recorder.start({ config: {} });
      recorder.announce({ totalTestCases: 1, resumedTestCases: 0, metricNames: [] });
      const recorded = recorder.recordCase({ result: testResult(), fingerprint: "f", spent });
      await expect(recorded).rejects.toBeInstanceOf(StoreError);
      await expect(recorded).rejects.toThrow("The disk is full.");
      // The case was not stored, so it is not reported as finished either.
      expect(events.map((event) => event.type)).toEqual(["run-start"]);
      await recorder.finish({ ...finishing, status: "failed", total: 1 });
      expect(await store.runs.getRun("nightly")).toMatchObject({ status: "failed" });
      expect(warnings).toEqual([]);
    });

    it("with onStoreFailure 'continue': warns, goes on, and says what the store is left with when it never comes back", async () => {
      const { store, saved } = breaking();
      const { events, reporter } = recording();
      const { recorder, warnings } = await open({
        store,
        reporters: [reporter],
        onStoreFailure: "continue",
      });
      await recorder.start({ config: {} });
      recorder.announce({ totalTestCases: 2, resumedTestCases: 0, metricNames: [] });
      await recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
      await recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
      const result = await recorder.finish({
        ...finishing,
        testResults: [testResult({ index: 0 }), testResult({ index: 1 })],
        total: 2,
      });
      expect(warnings).toEqual([
        "Warning: The disk is full. The run goes on: its cases are kept and written to the store with the run's end.",
        "Warning: the store failed again at the run's end, so 2 of its results and its end are not stored: The disk is full. " +
          "The stored run stays marked running; verdict view and verdict compare show it as interrupted once its last heartbeat is 2 minutes old. " +
          "This run's reports hold every result.",
      ]);
      // Every case is still reported, and the run ends; the store was tried once mid-run
      // and once more at the end.
      expect(events.map((event) => event.type)).toEqual([
        "run-start",
        "test-case-end",
        "test-case-end",
        "run-end",
      ]);
      expect(result.summary.testCases.passed).toBe(2);
      expect(saved).toEqual(["f0", "f0"]);
      // The end is not written over missing results.
      expect(await store.runs.getRun("nightly")).toMatchObject({ status: "running" });
    });

    it("with onStoreFailure 'continue': writes the cases it held, and the end, when the store is back at the end", async () => {
      const store = new MemoryRunStore();
      const save = store.runs.saveTestResult.bind(store.runs);
      let down = true;
      store.runs.saveTestResult = async (runId, stored) => {
        if (down) throw new StoreError("Could not save test result: the server is away.");
        await save(runId, stored);
      };
      const { recorder, warnings } = await open({ store, onStoreFailure: "continue" });
      await recorder.start({ config: {} });
      await recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
      await recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
      down = false;
      await recorder.recordCase({ result: testResult({ index: 2 }), fingerprint: "f2", spent });
      await recorder.finish({
        ...finishing,
        testResults: [0, 1, 2].map((index) => testResult({ index })),
        total: 3,
      });
      expect(warnings).toHaveLength(1);
      const run = await store.runs.getRun("nightly");
      expect(run).toMatchObject({ status: "completed" });
      const stored = await store.runs.getTestResults(run?.id ?? "");
      expect(stored.map((entry) => entry.fingerprint)).toEqual(["f0", "f1", "f2"]);
    });

    it("with onStoreFailure 'stop': says the run stays marked running when its end cannot be stored, and how to resume", async () => {
      const store = new MemoryRunStore();
      store.runs.finishRun = async () => {
        throw new StoreError("Could not finish run: nothing answers at db:5432.");
      };
      const { recorder, warnings } = await open({ store });
      await recorder.start({ config: {} });
      await recorder.finish({ ...finishing, status: "failed" });
      expect(warnings).toEqual([
        "Warning: the run's end could not be stored: Could not finish run: nothing answers at db:5432. " +
          "The stored run stays marked running; verdict view and verdict compare show it as interrupted once its last heartbeat is 2 minutes old. " +
          'What it stored is kept: once the store is back, resume it with evaluate({ identifier: "nightly", resume: true, … }).',
      ]);
    });
  });

  it("resumes: reuses the stored results whose fingerprint still matches, and does not store them again", async () => {
    const store = new MemoryRunStore();
    const first = (await open({ store })).recorder;
    await first.start({ config: {} });
    await first.recordCase({
      result: testResult({ index: 0, name: "kept" }),
      fingerprint: "a",
      spent,
    });
    await first.recordCase({
      result: testResult({ index: 1, name: "changed" }),
      fingerprint: "b",
      spent,
    });
    await first.finish({ ...finishing, status: "interrupted", total: 3 });

    const { events, reporter } = recording();
    const second = (await open({ store, resume: true, reporters: [reporter] })).recorder;
    const changed = ["a", "b-changed", "c"];
    const reused = await second.start({
      config: {},
      fingerprintOf: (index) => changed[index] ?? "",
    });
    expect(second.runId).toBe(first.runId);
    expect([...reused.keys()]).toEqual([0]);
    const saved: string[] = [];
    const save = store.runs.saveTestResult.bind(store);
    store.runs.saveTestResult = async (runId, stored) => {
      saved.push(stored.fingerprint);
      await save(runId, stored);
    };
    second.announce({ totalTestCases: 3, resumedTestCases: 1, metricNames: [] });
    await second.recordCase({ result: reused.get(0) ?? testResult(), fingerprint: "a", spent });
    await second.recordCase({
      result: testResult({ index: 1 }),
      fingerprint: "b-changed",
      spent,
    });
    expect(saved).toEqual(["b-changed"]);
    expect(
      events
        .filter((event) => event.type === "test-case-end")
        .map((event) => event.type === "test-case-end" && event.finished),
    ).toEqual([2, 3]);
    await second.close();
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

    it("records its owner at start, beats while open, and stops when the run ends", async () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
      const store = new MemoryRunStore();
      const { recorder } = await open({ store, heartbeatIntervalMs: 15_000 });
      await recorder.start({ config: {} });
      const heartbeatAt = async () => (await store.runs.getRun("nightly"))?.owner?.heartbeatAt;
      expect((await store.runs.getRun("nightly"))?.owner).toEqual(
        owner("2025-01-01T10:00:00.000Z"),
      );
      await vi.advanceTimersByTimeAsync(14_999);
      expect(await heartbeatAt()).toBe("2025-01-01T10:00:00.000Z");
      await vi.advanceTimersByTimeAsync(1);
      expect(await heartbeatAt()).toBe("2025-01-01T10:00:15.000Z");
      await vi.advanceTimersByTimeAsync(30_000);
      expect(await heartbeatAt()).toBe("2025-01-01T10:00:45.000Z");
      await recorder.finish(finishing);
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(await heartbeatAt()).toBe("2025-01-01T10:00:45.000Z");
    });

    it("beats with a stored case, at most once a second", async () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
      const store = new MemoryRunStore();
      const { recorder } = await open({ store });
      await recorder.start({ config: {} });
      recorder.announce({ totalTestCases: 3, resumedTestCases: 0, metricNames: [] });
      const heartbeatAt = async () => {
        // The beat that rides on a case is not awaited by recordCase: let it land.
        await vi.advanceTimersByTimeAsync(0);
        return (await store.runs.getRun("nightly"))?.owner?.heartbeatAt;
      };
      vi.setSystemTime(new Date("2025-01-01T10:00:05.000Z"));
      await recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
      expect(await heartbeatAt()).toBe("2025-01-01T10:00:05.000Z");
      vi.setSystemTime(new Date("2025-01-01T10:00:05.500Z"));
      await recorder.recordCase({ result: testResult({ index: 1 }), fingerprint: "f1", spent });
      expect(await heartbeatAt()).toBe("2025-01-01T10:00:05.000Z");
      vi.setSystemTime(new Date("2025-01-01T10:00:06.000Z"));
      await recorder.recordCase({ result: testResult({ index: 2 }), fingerprint: "f2", spent });
      expect(await heartbeatAt()).toBe("2025-01-01T10:00:06.000Z");
      await recorder.close();
      expect(vi.getTimerCount()).toBe(0);
    });

    it("takes over a resumed run's ownership", async () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T11:00:00.000Z") });
      const store = new MemoryRunStore();
      await store.runs.startRun({
        id: "earlier",
        identifier: "nightly",
        status: "running",
        startedAt: "2025-01-01T10:00:00.000Z",
        endedAt: null,
        config: {},
        summary: null,
        owner: { pid: 999_999, hostname: "elsewhere", heartbeatAt: "2025-01-01T10:00:10.000Z" },
      });
      const { recorder } = await open({ store, resume: true });
      await recorder.start({ config: {} });
      expect(await store.runs.getRun("nightly")).toMatchObject({
        id: "earlier",
        status: "running",
        owner: owner("2025-01-01T11:00:00.000Z"),
      });
      await recorder.close();
    });

    it("warns once when a heartbeat cannot be stored, and the run goes on", async () => {
      vi.useFakeTimers({ now: new Date("2025-01-01T10:00:00.000Z") });
      const store = new MemoryRunStore();
      const { recorder, warnings } = await open({ store });
      await recorder.start({ config: {} });
      store.runs.heartbeatRun = async () => {
        throw new StoreError("disk full");
      };
      await vi.advanceTimersByTimeAsync(45_000);
      expect(warnings).toEqual([
        "Warning: the run's heartbeat could not be stored (later failures are not repeated): disk full",
      ]);
      await recorder.recordCase({ result: testResult({ index: 0 }), fingerprint: "f0", spent });
      expect(await store.runs.getTestResults(recorder.runId)).toHaveLength(1);
      await recorder.close();
    });
  });
});
