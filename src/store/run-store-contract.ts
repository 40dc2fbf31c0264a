import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { calibrationReport } from "../../test/fixtures/calibration.ts";
import { testResultArbitrary } from "../../test/fixtures/result-arbitraries.ts";
import { metricData, testResult } from "../../test/fixtures/results.ts";
import { StoreError } from "../errors/store-error.ts";
import type { EvaluationSummary, TestResult } from "../results/evaluation-result.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import type {
  JudgeBatchLog,
  JudgeCache,
  RunOwner,
  RunStore,
  StoredJudgeBatch,
  StoredRun,
  StoredTestResult,
} from "./run-store.ts";

/** What the contract holds a store to: the runs, the judge cache and the judge batch log. */
export type ContractStore = RunStore & { judgeCache: JudgeCache; judgeBatches: JudgeBatchLog };

/** A store under test, with whatever must be removed afterwards. */
export interface RunStoreUnderTest {
  store: ContractStore;
  /** Called after the store is closed, e.g. to remove a temporary folder. */
  cleanup?: () => void;
}

/** Options of {@link describeRunStoreContract}. */
export interface RunStoreContractOptions {
  /** Shown in the suite's title. */
  name: string;
  /** Creates a fresh, empty store; called before every test. */
  create: () => RunStoreUnderTest;
}

/** A run header for tests; `overrides` replace any field. */
export function makeStoredRun(overrides: Partial<StoredRun> = {}): StoredRun {
  return {
    id: "run-1",
    identifier: null,
    status: "running",
    startedAt: "2025-01-01T10:00:00.000Z",
    endedAt: null,
    config: { metrics: [{ name: "Toxicity", threshold: 0.5 }], judge: "mock-judge" },
    summary: null,
    owner: null,
    ...overrides,
  };
}

/** A run owner for tests: process 4242 on "build-host", last heard of at `heartbeatAt`. */
export function makeRunOwner(overrides: Partial<RunOwner> = {}): RunOwner {
  return {
    pid: 4242,
    hostname: "build-host",
    heartbeatAt: "2025-01-01T10:00:30.000Z",
    ...overrides,
  };
}

/** A stored test result of test case `index` for tests. */
export function makeStoredTestResult(index: number, overrides: Partial<TestResult> = {}) {
  const result: TestResult = testResult({
    name: `test_case_${index}`,
    index,
    success: true,
    input: `question ${index}`,
    actualOutput: `answer ${index}`,
    metricsData: [
      metricData({
        score: 0,
        reason: "The score is 0.00 because none of the 2 opinions is toxic.",
        evaluationModel: "mock-judge",
        evaluationCost: null,
        inputTokens: 120,
        outputTokens: 30,
        verboseLogs: "Opinions:\n- a\n- b",
      }),
    ],
    passedTrials: 1,
    ...overrides,
  });
  return { fingerprint: `fingerprint-${index}`, result } satisfies StoredTestResult;
}

/** An open judge batch of three requests for tests; `overrides` replace any field. */
export function makeStoredJudgeBatch(overrides: Partial<StoredJudgeBatch> = {}): StoredJudgeBatch {
  return {
    id: "batch_1",
    provider: "openai.batch",
    judge: "openai:gpt-4.1",
    requestKeys: ["key-a", "key-b", "key-c"],
    state: "open",
    providerStatus: "validating",
    createdAt: "2025-01-01T10:00:00.000Z",
    updatedAt: "2025-01-01T10:00:00.000Z",
    ...overrides,
  };
}

/** Totals of a finished run for tests. */
export function makeSummary(overrides: Partial<EvaluationSummary> = {}): EvaluationSummary {
  return {
    status: "completed",
    metrics: [
      {
        name: "Toxicity",
        lowerIsBetter: true,
        meanScore: 0,
        passRate: 1,
        passed: 3,
        failed: 0,
        errored: 0,
        scoreOnly: 0,
      },
    ],
    testCases: { total: 3, passed: 3, failed: 0, unscored: 0 },
    judgeCalls: 6,
    cacheHits: 0,
    sharedCalls: 0,
    inputTokens: 360,
    outputTokens: 90,
    costUsd: null,
    saved: { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: null },
    durationMs: 1234,
    ...overrides,
  };
}

/**
 * The behaviour every {@link RunStore} must have, as a Vitest suite: call it from a store's
 * test file so that all stores are held to the same contract.
 * @example
 * describeRunStoreContract({ name: "MemoryRunStore", create: () => ({ store: new MemoryRunStore() }) });
 */
export function describeRunStoreContract(options: RunStoreContractOptions): void {
  describe(`${options.name} (RunStore contract)`, () => {
    let underTest: RunStoreUnderTest;
    let store: ContractStore;

    beforeEach(() => {
      underTest = options.create();
      store = underTest.store;
    });

    afterEach(() => {
      store.close();
      underTest.cleanup?.();
    });

    describe("runs", () => {
      it("returns a started run by id, exactly as given", () => {
        const run = makeStoredRun({ identifier: "nightly" });
        store.startRun(run);
        expect(store.getRun("run-1")).toEqual(run);
      });

      it("returns null for an unknown id or identifier", () => {
        store.startRun(makeStoredRun({ identifier: "nightly" }));
        expect(store.getRun("nope")).toBeNull();
      });

      it("records the end of a run with its summary", () => {
        store.startRun(makeStoredRun());
        const summary = makeSummary();
        store.finishRun({
          runId: "run-1",
          status: "completed",
          endedAt: "2025-01-01T10:05:00.000Z",
          summary,
        });
        expect(store.getRun("run-1")).toMatchObject({
          status: "completed",
          endedAt: "2025-01-01T10:05:00.000Z",
          summary,
        });
      });

      it("reopens a finished run as running, keeping its results", () => {
        store.startRun(makeStoredRun());
        store.saveTestResult("run-1", makeStoredTestResult(0));
        store.finishRun({
          runId: "run-1",
          status: "interrupted",
          endedAt: "2025-01-01T10:05:00.000Z",
          summary: makeSummary({ status: "interrupted" }),
        });
        store.reopenRun("run-1");
        expect(store.getRun("run-1")).toMatchObject({
          status: "running",
          endedAt: null,
          summary: null,
        });
        expect(store.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
      });

      it("finds the latest run with an identifier, by start time then by start order", () => {
        store.startRun(
          makeStoredRun({ id: "a", identifier: "nightly", startedAt: "2025-01-02T00:00:00.000Z" }),
        );
        store.startRun(
          makeStoredRun({ id: "b", identifier: "nightly", startedAt: "2025-01-03T00:00:00.000Z" }),
        );
        store.startRun(
          makeStoredRun({ id: "c", identifier: "nightly", startedAt: "2025-01-01T00:00:00.000Z" }),
        );
        store.startRun(
          makeStoredRun({ id: "d", identifier: "other", startedAt: "2025-01-09T00:00:00.000Z" }),
        );
        expect(store.getRun("nightly")?.id).toBe("b");
        store.startRun(
          makeStoredRun({ id: "e", identifier: "nightly", startedAt: "2025-01-03T00:00:00.000Z" }),
        );
        expect(store.getRun("nightly")?.id).toBe("e");
      });

      it("matches an id before an identifier", () => {
        store.startRun(
          makeStoredRun({ id: "x", identifier: null, startedAt: "2025-01-01T00:00:00.000Z" }),
        );
        store.startRun(
          makeStoredRun({ id: "y", identifier: "x", startedAt: "2025-01-02T00:00:00.000Z" }),
        );
        expect(store.getRun("x")?.id).toBe("x");
      });

      it("lists runs newest first, with an optional limit", () => {
        store.startRun(makeStoredRun({ id: "old", startedAt: "2025-01-01T00:00:00.000Z" }));
        store.startRun(makeStoredRun({ id: "new", startedAt: "2025-03-01T00:00:00.000Z" }));
        store.startRun(makeStoredRun({ id: "mid", startedAt: "2025-02-01T00:00:00.000Z" }));
        store.startRun(makeStoredRun({ id: "mid-later", startedAt: "2025-02-01T00:00:00.000Z" }));
        expect(store.listRuns().map((run) => run.id)).toEqual(["new", "mid-later", "mid", "old"]);
        expect(store.listRuns({ limit: 2 }).map((run) => run.id)).toEqual(["new", "mid-later"]);
        expect(store.listRuns({ limit: 0 })).toEqual([]);
      });

      it("lists nothing when empty", () => {
        expect(store.listRuns()).toEqual([]);
      });

      it("refuses a second run with the same id", () => {
        store.startRun(makeStoredRun());
        expect(() => store.startRun(makeStoredRun())).toThrow(StoreError);
        expect(() => store.startRun(makeStoredRun())).toThrow(/already exists/);
      });

      it("refuses to finish or reopen an unknown run", () => {
        expect(() =>
          store.finishRun({
            runId: "nope",
            status: "completed",
            endedAt: "2025-01-01T00:00:00.000Z",
            summary: makeSummary(),
          }),
        ).toThrow(StoreError);
        expect(() => store.reopenRun("nope")).toThrow(/no run with this id/);
      });

      it("refuses a negative or fractional list limit", () => {
        expect(() => store.listRuns({ limit: -1 })).toThrow(StoreError);
        expect(() => store.listRuns({ limit: 1.5 })).toThrow(StoreError);
      });

      it("never stores API keys found in a run's configuration", () => {
        store.startRun(
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
        expect(store.getRun("run-1")?.config).toEqual({
          judge: { name: "gpt-4.1", apiKey: "***", maxTokens: 900 },
        });
      });
    });

    describe("secrets", () => {
      // A key in no known format, as a provider would echo it: only its value identifies it.
      const key = "Zq8vLr2mXw4Tn6Pb0Hc5Jd7Kf9Gs1Ay3Ue";
      let forget: () => void = () => {};
      beforeEach(() => {
        forget = registerSecretValues([key]);
      });
      afterEach(() => forget());

      it("masks configured secret values in results, summaries, configurations and cache", () => {
        const echoed = `provider said: bad key ${key}`;
        store.startRun(makeStoredRun({ config: { note: echoed } }));
        store.saveTestResult(
          "run-1",
          makeStoredTestResult(0, {
            actualOutput: `my key is ${key}`,
            metricsData: [metricData({ score: null, error: echoed, reason: null })],
          }),
        );
        store.finishRun({
          runId: "run-1",
          status: "completed",
          endedAt: "2025-01-01T10:05:00.000Z",
          summary: makeSummary({
            metrics: makeSummary().metrics.map((metric) => ({ ...metric, name: echoed })),
          }),
        });
        store.judgeCache.set("k", {
          text: `{"reason": "${key}"}`,
          object: { reason: key },
          inputTokens: null,
          outputTokens: null,
          costUsd: null,
        });
        const everything = JSON.stringify([
          store.getRun("run-1"),
          store.getTestResults("run-1"),
          store.judgeCache.get("k"),
        ]);
        expect(everything).not.toContain(key);
        expect(store.getTestResults("run-1")[0]?.result).toMatchObject({
          actualOutput: "my key is ***",
          metricsData: [{ error: "provider said: bad key ***" }],
        });
        expect(store.judgeCache.get("k")).toMatchObject({
          text: '{"reason": "***"}',
          object: { reason: "***" },
        });
      });
    });

    describe("owner and heartbeat", () => {
      it("returns the owner a run was started with, and null when none was given", () => {
        const owner = makeRunOwner();
        store.startRun(makeStoredRun({ id: "owned", owner }));
        store.startRun(makeStoredRun({ id: "legacy", owner: null }));
        const { owner: _omitted, ...withoutOwner } = makeStoredRun({ id: "unspecified" });
        store.startRun(withoutOwner);
        expect(store.getRun("owned")?.owner).toEqual(owner);
        expect(store.getRun("legacy")?.owner).toBeNull();
        expect(store.getRun("unspecified")?.owner).toBeNull();
        expect(store.listRuns().find((run) => run.id === "owned")?.owner).toEqual(owner);
      });

      it("records each heartbeat, changing nothing else", () => {
        store.startRun(makeStoredRun({ owner: makeRunOwner() }));
        store.saveTestResult("run-1", makeStoredTestResult(0));
        const later = makeRunOwner({ heartbeatAt: "2025-01-01T10:01:00.000Z" });
        store.heartbeatRun({ runId: "run-1", owner: later });
        expect(store.getRun("run-1")).toEqual(makeStoredRun({ owner: later }));
        expect(store.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
      });

      it("hands a reopened run to the process that resumes it", () => {
        store.startRun(makeStoredRun({ owner: makeRunOwner({ pid: 111, hostname: "a" }) }));
        store.reopenRun("run-1");
        const resumer = makeRunOwner({ pid: 222, hostname: "b" });
        store.heartbeatRun({ runId: "run-1", owner: resumer });
        expect(store.getRun("run-1")).toMatchObject({ status: "running", owner: resumer });
      });

      it("keeps the owner of a finished run", () => {
        const owner = makeRunOwner();
        store.startRun(makeStoredRun({ owner }));
        store.finishRun({
          runId: "run-1",
          status: "completed",
          endedAt: "2025-01-01T10:05:00.000Z",
          summary: makeSummary(),
        });
        expect(store.getRun("run-1")).toMatchObject({ status: "completed", owner });
      });

      it("refuses a heartbeat for an unknown run or with an unusable owner", () => {
        expect(() => store.heartbeatRun({ runId: "nope", owner: makeRunOwner() })).toThrow(
          /no run with this id/,
        );
        store.startRun(makeStoredRun());
        for (const owner of [
          makeRunOwner({ pid: 0 }),
          makeRunOwner({ pid: 1.5 }),
          makeRunOwner({ hostname: "" }),
          makeRunOwner({ heartbeatAt: "yesterday" }),
        ]) {
          expect(() => store.heartbeatRun({ runId: "run-1", owner })).toThrow(StoreError);
        }
        expect(store.getRun("run-1")?.owner).toBeNull();
      });
    });

    describe("sharded runs", () => {
      const shardOwner = (pid: number, heartbeatAt: string) =>
        makeRunOwner({ pid, hostname: `machine-${pid}`, heartbeatAt });
      const startPart = (index: number, options: { count?: number; pid?: number } = {}) =>
        store.startRunPart({
          run: makeStoredRun({ id: "sharded", identifier: "nightly", owner: null }),
          part: {
            shard: { index, count: options.count ?? 3 },
            startedAt: `2025-01-01T10:0${index}:00.000Z`,
            owner: shardOwner(options.pid ?? index, `2025-01-01T10:0${index}:30.000Z`),
          },
        });

      it("creates the run with its first shard; the others join it and write into it", () => {
        startPart(2);
        startPart(1);
        store.saveTestResult("sharded", makeStoredTestResult(5));
        store.saveTestResult("sharded", makeStoredTestResult(1));
        const run = store.getRun("nightly");
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
        expect(store.getTestResults("sharded").map((stored) => stored.result.index)).toEqual([
          1, 5,
        ]);
        expect(store.listRuns()[0]?.shards?.parts.map((part) => part.shard)).toEqual([1, 2]);
      });

      it("ends a shard's part alone, and the run as a whole only when told", () => {
        startPart(1);
        startPart(2);
        const partSummary = makeSummary({
          testCases: { total: 1, passed: 1, failed: 0, unscored: 0 },
        });
        store.finishRun({
          runId: "sharded",
          status: "completed",
          endedAt: "2025-01-01T11:00:00.000Z",
          summary: partSummary,
          shard: 2,
        });
        const afterPart = store.getRun("sharded");
        expect(afterPart).toMatchObject({ status: "running", endedAt: null, summary: null });
        expect(afterPart?.shards?.parts[1]).toMatchObject({
          status: "completed",
          endedAt: "2025-01-01T11:00:00.000Z",
          summary: partSummary,
        });
        store.finishRun({
          runId: "sharded",
          status: "completed",
          endedAt: "2025-01-01T11:05:00.000Z",
          summary: makeSummary(),
        });
        expect(store.getRun("sharded")).toMatchObject({
          status: "completed",
          summary: makeSummary(),
          shards: { count: 3, parts: [{ status: "running" }, { status: "completed" }] },
        });
      });

      it("shows the owner of its stalest running part, else of its latest part", () => {
        startPart(1);
        startPart(2);
        store.heartbeatRun({
          runId: "sharded",
          owner: shardOwner(1, "2025-01-01T12:00:00.000Z"),
          shard: 1,
        });
        expect(store.getRun("sharded")?.owner).toEqual(shardOwner(2, "2025-01-01T10:02:30.000Z"));
        for (const shard of [1, 2]) {
          store.finishRun({
            runId: "sharded",
            status: "completed",
            endedAt: "2025-01-01T12:30:00.000Z",
            summary: makeSummary(),
            shard,
          });
        }
        expect(store.getRun("sharded")?.owner).toEqual(shardOwner(2, "2025-01-01T10:02:30.000Z"));
      });

      it("starts a shard run again afresh, and reopens a part and its run", () => {
        startPart(1);
        store.saveTestResult("sharded", makeStoredTestResult(0));
        store.finishRun({
          runId: "sharded",
          status: "interrupted",
          endedAt: "2025-01-01T11:00:00.000Z",
          summary: makeSummary({ status: "interrupted" }),
          shard: 1,
        });
        store.finishRun({
          runId: "sharded",
          status: "interrupted",
          endedAt: "2025-01-01T11:00:00.000Z",
          summary: makeSummary({ status: "interrupted" }),
        });
        store.reopenRun("sharded", { shard: 1 });
        expect(store.getRun("sharded")).toMatchObject({
          status: "running",
          summary: null,
          shards: { parts: [{ shard: 1, status: "running", endedAt: null, summary: null }] },
        });
        startPart(1, { pid: 99 });
        expect(store.getRun("sharded")?.shards?.parts).toEqual([
          {
            shard: 1,
            status: "running",
            startedAt: "2025-01-01T10:01:00.000Z",
            endedAt: null,
            summary: null,
            owner: shardOwner(99, "2025-01-01T10:01:30.000Z"),
          },
        ]);
        expect(store.getTestResults("sharded")).toEqual([makeStoredTestResult(0)]);
      });

      it("refuses a shard of another split, an invalid shard, and a run of one process", () => {
        startPart(1);
        expect(() => startPart(2, { count: 4 })).toThrow(/split into 3 shards, not 4/);
        expect(() => startPart(0)).toThrow(StoreError);
        expect(() => startPart(4)).toThrow(StoreError);
        store.startRun(makeStoredRun({ id: "single" }));
        expect(() =>
          store.startRunPart({
            run: makeStoredRun({ id: "single" }),
            part: {
              shard: { index: 1, count: 2 },
              startedAt: "2025-01-01T10:00:00.000Z",
              owner: null,
            },
          }),
        ).toThrow(/id of its own/);
        expect(store.getRun("single")?.shards).toBeUndefined();
      });

      it("refuses to end, reopen or beat a shard that never started", () => {
        startPart(1);
        const summary = makeSummary();
        const endedAt = "2025-01-01T11:00:00.000Z";
        expect(() =>
          store.finishRun({ runId: "sharded", status: "completed", endedAt, summary, shard: 2 }),
        ).toThrow(/no shard 2/);
        expect(() => store.reopenRun("sharded", { shard: 3 })).toThrow(/no shard 3/);
        expect(() =>
          store.heartbeatRun({ runId: "sharded", owner: makeRunOwner(), shard: 2 }),
        ).toThrow(/no shard 2/);
        expect(() =>
          store.heartbeatRun({ runId: "nope", owner: makeRunOwner(), shard: 1 }),
        ).toThrow(/no run with this id/);
      });

      it("stores an imported sharded run exactly as given", () => {
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
        store.startRun(run);
        expect(store.getRun("imported")).toEqual(run);
      });
    });

    describe("test results", () => {
      it("returns saved results in index order, whatever the order of saving", () => {
        store.startRun(makeStoredRun());
        for (const index of [2, 0, 10, 1])
          store.saveTestResult("run-1", makeStoredTestResult(index));
        expect(store.getTestResults("run-1")).toEqual(
          [0, 1, 2, 10].map((index) => makeStoredTestResult(index)),
        );
      });

      it("replaces the result saved at the same index", () => {
        store.startRun(makeStoredRun());
        store.saveTestResult("run-1", makeStoredTestResult(0));
        const replacement = {
          ...makeStoredTestResult(0, { success: false }),
          fingerprint: "changed",
        };
        store.saveTestResult("run-1", replacement);
        expect(store.getTestResults("run-1")).toEqual([replacement]);
      });

      it("keeps each run's results apart", () => {
        store.startRun(makeStoredRun({ id: "a" }));
        store.startRun(makeStoredRun({ id: "b" }));
        store.saveTestResult("a", makeStoredTestResult(0, { input: "from a" }));
        store.saveTestResult("b", makeStoredTestResult(0, { input: "from b" }));
        expect(store.getTestResults("a").map((stored) => stored.result.input)).toEqual(["from a"]);
        expect(store.getTestResults("b").map((stored) => stored.result.input)).toEqual(["from b"]);
        expect(store.getTestResults("unknown")).toEqual([]);
      });

      it("counts results and versions every save, so a reader re-reads only what changed", () => {
        store.startRun(makeStoredRun());
        store.startRun(makeStoredRun({ id: "other" }));
        expect(store.getTestResultsVersion("run-1")).toEqual({ count: 0, version: 0 });
        expect(store.getTestResultsVersion("unknown")).toEqual({ count: 0, version: 0 });
        store.saveTestResult("run-1", makeStoredTestResult(0));
        store.saveTestResult("run-1", makeStoredTestResult(1));
        store.saveTestResult("other", makeStoredTestResult(0));
        const seen = store.getTestResultsVersion("run-1");
        expect(seen.count).toBe(2);
        expect(seen.version).toBeGreaterThan(0);
        expect(store.getTestResults("run-1", { changedAfter: seen.version })).toEqual([]);
        const replacement = makeStoredTestResult(0, { input: "again" });
        store.saveTestResult("run-1", replacement);
        store.saveTestResult("run-1", makeStoredTestResult(5));
        const now = store.getTestResultsVersion("run-1");
        expect(now.count).toBe(3);
        expect(now.version).toBeGreaterThan(seen.version);
        expect(store.getTestResults("run-1", { changedAfter: seen.version })).toEqual([
          replacement,
          makeStoredTestResult(5),
        ]);
        expect(store.getTestResults("run-1", { changedAfter: 0 })).toHaveLength(3);
        expect(store.getTestResultsVersion("other").count).toBe(1);
      });

      it("refuses a result for a run that was never started", () => {
        expect(() => store.saveTestResult("nope", makeStoredTestResult(0))).toThrow(
          /call startRun first/,
        );
      });

      it("refuses a result without a valid index", () => {
        store.startRun(makeStoredRun());
        expect(() => store.saveTestResult("run-1", makeStoredTestResult(-1))).toThrow(StoreError);
        expect(() => store.saveTestResult("run-1", makeStoredTestResult(0.5))).toThrow(StoreError);
      });

      it("keeps every field of generated results (steps, judge calls, files, tags, image data…)", () => {
        store.startRun(makeStoredRun());
        const results = fc.sample(testResultArbitrary, { numRuns: 30, seed: 11 });
        const byIndex = new Map(results.map((result) => [result.index, result]));
        for (const result of byIndex.values()) {
          store.saveTestResult("run-1", { fingerprint: "f", result });
        }
        const read = store.getTestResults("run-1").map((stored) => stored.result);
        expect(read).toStrictEqual(
          structuredClone([...byIndex.values()].sort((a, b) => a.index - b.index)),
        );
      });

      it("keeps unicode and large values intact", () => {
        const input = 'Ünïcödé 😀 中文 עברית \u0000 nul, lone \ud800 surrogate, "quotes" \\ back';
        const verboseLogs = "x".repeat(2_000_000);
        const stored = makeStoredTestResult(0, { input, actualOutput: "🧪".repeat(10_000) });
        const first = stored.result.metricsData[0];
        if (first !== undefined) first.verboseLogs = verboseLogs;
        store.startRun(makeStoredRun({ identifier: "ユニコード", config: { note: "café ☕" } }));
        store.saveTestResult("run-1", stored);
        expect(store.getTestResults("run-1")).toEqual([stored]);
        expect(store.getRun("ユニコード")?.config).toEqual({ note: "café ☕" });
      });
    });

    describe("isolation from callers", () => {
      it("is not changed by mutating what was saved or what was read", () => {
        const run = makeStoredRun();
        const stored = makeStoredTestResult(0);
        store.startRun(run);
        store.saveTestResult("run-1", stored);
        run.config.judge = "changed";
        stored.result.input = "changed";
        const read = store.getTestResults("run-1")[0];
        if (read !== undefined) read.result.input = "changed again";
        const readRun = store.getRun("run-1");
        if (readRun !== null) readRun.config.judge = "changed again";

        expect(store.getRun("run-1")?.config.judge).toBe("mock-judge");
        expect(store.getTestResults("run-1")[0]?.result.input).toBe("question 0");
      });

      it("keeps cached answers apart from the objects given and returned", () => {
        const answer = {
          text: null,
          object: { verdicts: [{ verdict: "yes" }] },
          inputTokens: 1,
          outputTokens: 2,
          costUsd: 0.5,
        };
        store.judgeCache.set("key", answer);
        answer.object.verdicts.push({ verdict: "no" });
        const read = store.judgeCache.get("key")?.object as { verdicts: unknown[] } | undefined;
        if (read !== undefined) read.verdicts.length = 0;
        expect(store.judgeCache.get("key")?.object).toEqual({ verdicts: [{ verdict: "yes" }] });
      });
    });

    describe("judge cache", () => {
      it("returns undefined for an unknown key", () => {
        expect(store.judgeCache.get("unknown")).toBeUndefined();
      });

      it("round-trips a text answer without usage or cost", () => {
        const answer = {
          text: '{"opinions": []}',
          object: undefined,
          inputTokens: null,
          outputTokens: null,
          costUsd: null,
        };
        store.judgeCache.set("text-key", answer);
        expect(store.judgeCache.get("text-key")).toEqual(answer);
      });

      it("round-trips an object answer with usage and cost", () => {
        const answer = {
          text: null,
          object: {
            verdicts: [{ verdict: "no", reason: "Fine — «ok» 👍" }],
            nested: { list: [1, 2.5, null, true] },
          },
          inputTokens: 1500,
          outputTokens: 42,
          costUsd: 0.003_141,
        };
        store.judgeCache.set("object-key", answer);
        expect(store.judgeCache.get("object-key")).toEqual(answer);
      });

      it("keeps a null object apart from a missing one", () => {
        store.judgeCache.set("null-object", {
          text: "null",
          object: null,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
        });
        expect(store.judgeCache.get("null-object")?.object).toBeNull();
      });

      it("replaces the answer stored under the same key", () => {
        store.judgeCache.set("key", {
          text: "first",
          object: undefined,
          inputTokens: 1,
          outputTokens: 1,
          costUsd: null,
        });
        store.judgeCache.set("key", {
          text: "second",
          object: undefined,
          inputTokens: 2,
          outputTokens: 2,
          costUsd: null,
        });
        expect(store.judgeCache.get("key")?.text).toBe("second");
      });

      it("lists its entries in key order, a page at a time, with the time each was stored", () => {
        const entry = (text: string) => ({
          text,
          object: undefined,
          inputTokens: null,
          outputTokens: null,
          costUsd: null,
        });
        store.judgeCache.set("c", entry("third"), { createdAt: "2025-01-03T00:00:00.000Z" });
        store.judgeCache.set("a", entry("first"), { createdAt: "2025-01-01T00:00:00.000Z" });
        store.judgeCache.set("b", entry("second"));
        const firstPage = store.judgeCache.entries?.({ limit: 2 }) ?? [];
        expect(firstPage.map((found) => [found.key, found.answer.text])).toEqual([
          ["a", "first"],
          ["b", "second"],
        ]);
        expect(firstPage[0]?.createdAt).toBe("2025-01-01T00:00:00.000Z");
        expect(Number.isNaN(Date.parse(firstPage[1]?.createdAt ?? ""))).toBe(false);
        expect(store.judgeCache.entries?.({ after: "b", limit: 2 })).toEqual([
          { key: "c", answer: entry("third"), createdAt: "2025-01-03T00:00:00.000Z" },
        ]);
      });

      it("stores a large answer under a long key", () => {
        const key = "k".repeat(500);
        const object = {
          statements: Array.from({ length: 5_000 }, (_, index) => `statement ${index} ✓`),
        };
        store.judgeCache.set(key, {
          text: null,
          object,
          inputTokens: 10,
          outputTokens: 20,
          costUsd: null,
        });
        expect(store.judgeCache.get(key)?.object).toEqual(object);
      });
    });

    describe("calibrations", () => {
      beforeEach(() => {
        store.startRun(makeStoredRun());
        store.startRun(makeStoredRun({ id: "run-2" }));
      });

      it("returns a saved calibration by id, exactly as given, and null for an unknown id", () => {
        const report = calibrationReport();
        store.saveCalibration(report);
        expect(store.getCalibration("calibration-1")).toEqual(report);
        expect(store.getCalibration("calibration-2")).toBeNull();
        expect(store.getCalibration("run-1")).toBeNull();
      });

      it("lists calibrations newest first, by time then by saving order, of one run or all", () => {
        const at = (id: string, runId: string, createdAt: string) =>
          store.saveCalibration(calibrationReport({ id, runId, createdAt }));
        at("old", "run-1", "2025-01-01T09:00:00.000Z");
        at("first-at-ten", "run-2", "2025-01-01T10:00:00.000Z");
        at("second-at-ten", "run-1", "2025-01-01T10:00:00.000Z");
        at("newest", "run-2", "2025-01-02T08:00:00.000Z");
        const ids = (reports: { id: string }[]) => reports.map((report) => report.id);
        expect(ids(store.listCalibrations())).toEqual([
          "newest",
          "second-at-ten",
          "first-at-ten",
          "old",
        ]);
        expect(ids(store.listCalibrations({ runId: "run-1" }))).toEqual(["second-at-ten", "old"]);
        expect(ids(store.listCalibrations({ limit: 2 }))).toEqual(["newest", "second-at-ten"]);
        expect(ids(store.listCalibrations({ runId: "run-2", limit: 1 }))).toEqual(["newest"]);
        expect(store.listCalibrations({ runId: "unknown" })).toEqual([]);
        expect(store.listCalibrations({ limit: 0 })).toEqual([]);
      });

      it("refuses a calibration of an unknown run, a second one with the same id, or a bad limit", () => {
        expect(() => store.saveCalibration(calibrationReport({ runId: "nope" }))).toThrow(
          /no run "nope"/,
        );
        store.saveCalibration(calibrationReport());
        expect(() => store.saveCalibration(calibrationReport({ runId: "run-2" }))).toThrow(
          /already exists/,
        );
        expect(store.getCalibration("calibration-1")?.runId).toBe("run-1");
        expect(() => store.listCalibrations({ limit: -1 })).toThrow(StoreError);
        expect(() => store.listCalibrations({ limit: 1.5 })).toThrow(/non-negative integer/);
      });

      it("is not changed by mutating what was saved or what was read", () => {
        const report = calibrationReport();
        store.saveCalibration(report);
        report.metric.name = "changed";
        const read = store.getCalibration("calibration-1");
        if (read !== null) read.disagreements.length = 0;
        const listed = store.listCalibrations()[0];
        if (listed !== undefined) listed.confusion.truePositive = 99;
        expect(store.getCalibration("calibration-1")).toEqual(calibrationReport());
      });

      it("masks configured secret values in what it keeps", () => {
        const key = "Yp3mQv8Lr2Xw6Tn4Bc0Hd5Jk7Fg9Sa1Ue";
        const forget = registerSecretValues([key]);
        try {
          const example = calibrationReport().disagreements[0];
          store.saveCalibration(
            calibrationReport({
              disagreements: example ? [{ ...example, actualOutput: `my key is ${key}` }] : [],
              unscored: [{ row: 2, line: 2, name: "row 2", error: `bad key ${key}` }],
            }),
          );
          const read = JSON.stringify([
            store.getCalibration("calibration-1"),
            store.listCalibrations(),
          ]);
          expect(read).not.toContain(key);
          expect(store.getCalibration("calibration-1")?.unscored[0]?.error).toBe("bad key ***");
        } finally {
          forget();
        }
      });
    });

    describe("judge batches", () => {
      it("lists no open batch in a new store", () => {
        expect(store.judgeBatches.listOpen()).toEqual([]);
      });

      it("returns a saved open batch exactly as given", () => {
        const batch = makeStoredJudgeBatch();
        store.judgeBatches.save(batch);
        expect(store.judgeBatches.listOpen()).toEqual([batch]);
      });

      it("replaces the batch with the same provider and id, and leaves a closed one out", () => {
        store.judgeBatches.save(makeStoredJudgeBatch());
        const progressed = makeStoredJudgeBatch({
          providerStatus: "in_progress",
          updatedAt: "2025-01-01T10:05:00.000Z",
        });
        store.judgeBatches.save(progressed);
        expect(store.judgeBatches.listOpen()).toEqual([progressed]);
        store.judgeBatches.save({ ...progressed, state: "closed", providerStatus: "completed" });
        expect(store.judgeBatches.listOpen()).toEqual([]);
      });

      it("keeps batches of two providers with the same id apart", () => {
        const openai = makeStoredJudgeBatch({ id: "same" });
        const anthropic = makeStoredJudgeBatch({ id: "same", provider: "anthropic.batch" });
        store.judgeBatches.save(openai);
        store.judgeBatches.save(anthropic);
        expect(store.judgeBatches.listOpen()).toHaveLength(2);
        store.judgeBatches.save({ ...openai, state: "closed" });
        expect(store.judgeBatches.listOpen()).toEqual([anthropic]);
      });

      it("lists open batches oldest first, whatever the order they were saved in", () => {
        const later = makeStoredJudgeBatch({ id: "later", createdAt: "2025-01-02T00:00:00.000Z" });
        const earlier = makeStoredJudgeBatch({
          id: "earlier",
          createdAt: "2025-01-01T00:00:00.000Z",
        });
        store.judgeBatches.save(later);
        store.judgeBatches.save(earlier);
        expect(store.judgeBatches.listOpen().map((batch) => batch.id)).toEqual([
          "earlier",
          "later",
        ]);
      });

      it("lists every batch, open or closed, in the order first saved (what an export copies)", () => {
        const first = makeStoredJudgeBatch({ id: "first", createdAt: "2025-01-02T00:00:00.000Z" });
        const second = makeStoredJudgeBatch({
          id: "second",
          createdAt: "2025-01-01T00:00:00.000Z",
        });
        store.judgeBatches.save(first);
        store.judgeBatches.save(second);
        const closed = { ...first, state: "closed" as const, providerStatus: "completed" };
        store.judgeBatches.save(closed);
        expect(store.judgeBatches.list?.()).toEqual([closed, second]);
      });

      it("round-trips a batch of 50,000 request keys", () => {
        const requestKeys = Array.from({ length: 50_000 }, (_, index) =>
          index.toString(16).padStart(64, "0"),
        );
        store.judgeBatches.save(makeStoredJudgeBatch({ requestKeys }));
        expect(store.judgeBatches.listOpen()[0]?.requestKeys).toEqual(requestKeys);
      });

      it("keeps batches apart from the objects given and returned", () => {
        const batch = makeStoredJudgeBatch();
        store.judgeBatches.save(batch);
        batch.requestKeys.push("key-d");
        const read = store.judgeBatches.listOpen()[0];
        read?.requestKeys.splice(0);
        expect(store.judgeBatches.listOpen()[0]?.requestKeys).toEqual(["key-a", "key-b", "key-c"]);
      });
    });

    describe("once closed", () => {
      it("throws a StoreError from every method, and closing again is harmless", () => {
        store.startRun(makeStoredRun());
        store.close();
        store.close();
        expect(() => store.getRun("run-1")).toThrow(StoreError);
        expect(() => store.listRuns()).toThrow(/closed/);
        expect(() => store.startRun(makeStoredRun({ id: "run-2" }))).toThrow(StoreError);
        expect(() => store.saveTestResult("run-1", makeStoredTestResult(0))).toThrow(StoreError);
        expect(() => store.getTestResults("run-1")).toThrow(StoreError);
        expect(() => store.getTestResultsVersion("run-1")).toThrow(StoreError);
        expect(() => store.reopenRun("run-1")).toThrow(StoreError);
        expect(() => store.heartbeatRun({ runId: "run-1", owner: makeRunOwner() })).toThrow(
          StoreError,
        );
        expect(() => store.saveCalibration(calibrationReport())).toThrow(StoreError);
        expect(() => store.getCalibration("calibration-1")).toThrow(StoreError);
        expect(() => store.listCalibrations()).toThrow(StoreError);
        expect(() => store.judgeCache.get("key")).toThrow(StoreError);
        expect(() => store.judgeBatches.listOpen()).toThrow(StoreError);
        expect(() => store.judgeBatches.save(makeStoredJudgeBatch())).toThrow(StoreError);
        expect(() =>
          store.judgeCache.set("key", {
            text: "t",
            object: undefined,
            inputTokens: null,
            outputTokens: null,
            costUsd: null,
          }),
        ).toThrow(StoreError);
      });
    });
  });
}
