import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TestCase, TestModule, TestSpecification, Vitest } from "vitest/node";
import { rawHiddenCharacters } from "../../test/fixtures/hidden-characters.ts";
import { testResult as baseTestResult, metricData } from "../../test/fixtures/results.ts";
import {
  makeUnopenableStore,
  removeUnopenableStore,
} from "../../test/fixtures/unopenable-stores.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { RunnerEvent } from "../results/runner-events.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { FILE_STRIDE, TEST_STRIDE } from "./case-indexer.ts";
import type { VerdictCaseOutcome, VerdictCaseRecord } from "./verdict-case-record.ts";
import { VerdictReporter } from "./verdict-reporter.ts";

const ROOT = "/project";

function metric(options: { name?: string; score: number | null; error?: string }): MetricData {
  const errored = options.error !== undefined;
  return metricData({
    name: options.name ?? "Toxicity",
    success: errored ? false : (options.score as number) <= 0.5,
    score: options.score,
    reason: errored ? null : "because",
    evaluationModel: "mock-judge",
    error: options.error ?? null,
    evaluationCost: 0.01,
    judgeCalls: 3,
    cachedJudgeCalls: 1,
  });
}

function record(options: {
  name: string;
  metrics?: MetricData[];
  outcome?: VerdictCaseOutcome;
  caseIndex?: number;
  retry?: number;
  error?: string;
}): VerdictCaseRecord {
  const metrics = options.metrics ?? [metric({ score: 0 })];
  const outcome =
    options.outcome ??
    (metrics.some((data) => data.error !== null)
      ? "errored"
      : metrics.some((data) => data.success === false)
        ? "failed"
        : "passed");
  const result: TestResult | null =
    outcome === "unscored" || outcome === "config-error"
      ? null
      : baseTestResult({
          name: options.name,
          success: !metrics.some((data) => data.success === false),
          input: "q",
          actualOutput: "a",
          metricsData: metrics,
          passedTrials: 1,
        });
  return {
    file: "",
    testName: options.name,
    caseIndex: options.caseIndex ?? 0,
    retry: options.retry ?? 0,
    repeat: 0,
    metricNames: metrics.map((data) => data.name),
    outcome,
    result,
    error:
      options.error === undefined
        ? null
        : {
            name: outcome === "config-error" ? "ConfigError" : "JudgeCallError",
            code: null,
            message: options.error,
          },
    runStatus: options.error?.includes("quota") ? "quota-exhausted" : "completed",
  };
}

interface FakeTest {
  name: string;
  /** Vitest's verdict on the test; by default from its records. */
  state?: "passed" | "failed";
  records?: VerdictCaseRecord[];
  failedWith?: { name: string; message: string; status?: number };
}

/** A test file as Vitest's reporter API shows it, with just what VerdictReporter reads. */
function fakeModule(file: string, tests: FakeTest[]) {
  const project = { config: { root: ROOT } };
  const testModule = {
    relativeModuleId: file,
    moduleId: `${ROOT}/${file}`,
    project,
    errors: () => [],
    children: {
      *allTests() {
        yield* testCases;
      },
    },
  };
  const testCases = tests.map((test, position) => ({
    id: `${file}#${position}`,
    name: test.name,
    fullName: test.name,
    module: testModule,
    project,
    options: { mode: "run" },
    meta: () => ({ verdict: test.records ?? [] }),
    result: () =>
      test.state === "passed"
        ? { state: "passed", errors: [] }
        : test.failedWith
          ? { state: "failed", errors: [test.failedWith] }
          : (test.records ?? []).some((entry) => entry.outcome !== "passed")
            ? {
                state: "failed",
                errors: [{ name: "VerdictAssertionError", message: "Metrics: …" }],
              }
            : { state: "passed", errors: [] },
  }));
  return {
    module: testModule as unknown as TestModule,
    tests: testCases as unknown as TestCase[],
    specification: { moduleId: testModule.moduleId, project } as unknown as TestSpecification,
  };
}

function output() {
  let text = "";
  return {
    stream: {
      write: (chunk: string) => {
        text += chunk;
        return true;
      },
    } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

async function runReporter(options: {
  modules: ReturnType<typeof fakeModule>[];
  /** Which modules this run executes (a shard); all by default. */
  run?: ReturnType<typeof fakeModule>[];
  /** Order in which test results arrive. */
  arrival?: TestCase[];
  store?: MemoryRunStore;
  resume?: boolean;
  shard?: { index: number; count: number };
  /** How Vitest says the run ended. @default "passed" */
  reason?: "passed" | "failed" | "interrupted";
}) {
  const store = options.store ?? new MemoryRunStore();
  const events: RunnerEvent[] = [];
  const stdout = output();
  const stderr = output();
  const reporter = new VerdictReporter({
    store,
    identifier: "nightly",
    ...(options.resume ? { resume: true } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
    env: {},
    reporters: [{ onEvent: (event) => events.push(event) }],
    showProgress: false,
    stdout: stdout.stream,
    stderr: stderr.stream,
    printVitestOutput: true,
  });
  const all = options.modules;
  const run = options.run ?? all;
  reporter.onInit({
    config: { root: ROOT },
    logger: {
      printError: (error: Error) => stderr.stream.write(`${error.name}: ${error.message}\n`),
    },
    globTestSpecifications: async () => all.map((module) => module.specification),
  } as unknown as Vitest);
  await reporter.onTestRunStart(run.map((module) => module.specification));
  for (const module of run) reporter.onTestModuleCollected(module.module);
  for (const testCase of options.arrival ?? run.flatMap((module) => module.tests)) {
    reporter.onTestCaseResult(testCase);
  }
  await reporter.onTestRunEnd(
    run.map((module) => module.module),
    [],
    options.reason ?? "passed",
  );
  return { reporter, store, events, stdout: stdout.text(), stderr: stderr.text() };
}

describe("VerdictReporter", () => {
  it("gathers the cases of every file into one stored run, in file then test order", async () => {
    const first = fakeModule("evals/a.eval.ts", [
      { name: "a1", records: [record({ name: "a1" })] },
      {
        name: "a2",
        records: [record({ name: "a2" }), record({ name: "a2 (case 2)", caseIndex: 1 })],
      },
    ]);
    const second = fakeModule("evals/b.eval.ts", [
      { name: "b1", records: [record({ name: "b1" })] },
    ]);
    const { reporter, store, events } = await runReporter({
      modules: [second, first],
      arrival: [second.tests[0], first.tests[1], first.tests[0]] as TestCase[],
    });

    const [run, ...others] = await store.runs.listRuns();
    expect(others).toEqual([]);
    expect(run).toMatchObject({ identifier: "nightly", status: "completed" });
    expect(run?.config).toMatchObject({
      runner: "vitest",
      files: ["evals/a.eval.ts", "evals/b.eval.ts"],
    });
    const stored = await store.runs.getTestResults(run?.id as string);
    expect(
      stored.map((entry) => [entry.result.name, entry.result.index, entry.result.file]),
    ).toEqual([
      ["a1", 0, "evals/a.eval.ts"],
      ["a2", TEST_STRIDE, "evals/a.eval.ts"],
      ["a2 (case 2)", TEST_STRIDE + 1, "evals/a.eval.ts"],
      ["b1", FILE_STRIDE, "evals/b.eval.ts"],
    ]);
    expect(new Set(stored.map((entry) => entry.fingerprint)).size).toBe(4);

    const result = reporter.result;
    expect(result?.testResults.map((testResult) => testResult.name)).toEqual([
      "a1",
      "a2",
      "a2 (case 2)",
      "b1",
    ]);
    expect(result?.summary).toMatchObject({
      status: "completed",
      testCases: { total: 4, passed: 4, failed: 0, unscored: 0 },
      judgeCalls: 8,
      cacheHits: 4,
      inputTokens: 400,
      outputTokens: 40,
    });
    expect(result?.summary.costUsd).toBeCloseTo(0.04);
    expect(reporter.outcome).toBe("passed");
    expect(events.map((event) => event.type)).toEqual([
      "run-start",
      "test-case-end",
      "test-case-end",
      "test-case-end",
      "test-case-end",
      "run-end",
    ]);
    // The total is known once every file is collected: the number of tests (a case each, mostly).
    expect(events[0]).toMatchObject({
      type: "run-start",
      totalTestCases: 3,
      // Metrics are learnt as tests run; run-start does not guess from the first results.
      metricNames: [],
    });
  });

  it("indexes each shard's cases as the whole run does", async () => {
    const modules = () => [
      fakeModule("evals/a.eval.ts", [{ name: "a1", records: [record({ name: "a1" })] }]),
      fakeModule("evals/b.eval.ts", [{ name: "b1", records: [record({ name: "b1" })] }]),
    ];
    const whole = await runReporter({ modules: modules() });
    const [a, b] = modules() as [ReturnType<typeof fakeModule>, ReturnType<typeof fakeModule>];
    const shardOne = await runReporter({ modules: [a, b], run: [b] });
    const shardTwo = await runReporter({ modules: [a, b], run: [a] });
    const indices = (run: typeof whole) =>
      run.reporter.result?.testResults.map((testResult) => testResult.index);
    expect([...(indices(shardTwo) ?? []), ...(indices(shardOne) ?? [])]).toEqual(indices(whole));
  });

  it("ends failed when a metric fails its threshold, and prints the failing case", async () => {
    const module = fakeModule("a.eval.ts", [
      { name: "rude", records: [record({ name: "rude", metrics: [metric({ score: 0.9 })] })] },
      { name: "polite", records: [record({ name: "polite" })] },
    ]);
    const { reporter, stdout } = await runReporter({ modules: [module] });
    expect(reporter.outcome).toBe("failed");
    expect(reporter.result?.summary.testCases).toMatchObject({ passed: 1, failed: 1 });
    expect(stdout).toMatch(/✗ rude/);
    expect(stdout).toMatch(/FAIL +\| Toxicity \| +0\.90 \| +0\.50/);
  });

  it("ends unscored when a metric errored, or a case could not be scored", async () => {
    const errored = fakeModule("a.eval.ts", [
      {
        name: "x",
        records: [record({ name: "x", metrics: [metric({ score: null, error: "bad JSON" })] })],
      },
    ]);
    expect((await runReporter({ modules: [errored] })).reporter.outcome).toBe("unscored");

    const quota = "Judge: the provider's quota is exhausted.";
    const unscored = fakeModule("a.eval.ts", [
      { name: "x", records: [record({ name: "x" })] },
      { name: "y", records: [record({ name: "y", outcome: "unscored", error: quota })] },
      { name: "z", records: [record({ name: "z", outcome: "unscored", error: quota })] },
    ]);
    const { reporter, stdout } = await runReporter({ modules: [unscored] });
    expect(reporter.outcome).toBe("unscored");
    expect(reporter.result?.summary).toMatchObject({
      status: "quota-exhausted",
      testCases: { total: 3, passed: 1, unscored: 2 },
    });
    expect(stdout).toContain(`${quota} (2 cases)`);
  });

  it("ends with a usage error on a configuration error, printed once and without a report", async () => {
    const message = 'Judge model "openai:gpt-4.1" needs OPENAI_API_KEY: set it.';
    const module = fakeModule(
      "a.eval.ts",
      ["x", "y", "z"].map((name) => ({
        name,
        records: [record({ name, outcome: "config-error", error: message })],
      })),
    );
    const { reporter, stdout, stderr, store } = await runReporter({ modules: [module] });
    expect(reporter.outcome).toBe("usage");
    expect(stderr.split("\n").filter((line) => line.includes("OPENAI_API_KEY"))).toEqual([message]);
    expect(stdout).toBe("");
    // Nothing ran: no empty failed run clutters the store.
    expect(await store.runs.listRuns()).toEqual([]);
  });

  it("counts the tests an interrupted run never finished: 3 of 5 unscored, not 0 of 2", async () => {
    const module = fakeModule(
      "a.eval.ts",
      ["a", "b", "c", "d", "e"].map((name) => ({ name, records: [record({ name })] })),
    );
    const { reporter, events } = await runReporter({
      modules: [module],
      arrival: module.tests.slice(0, 2),
      reason: "interrupted",
    });
    expect(reporter.result?.summary.status).toBe("interrupted");
    expect(reporter.result?.summary.testCases).toMatchObject({ total: 5, passed: 2, unscored: 3 });
    const end = events.find((event) => event.type === "run-end");
    expect(end?.type === "run-end" && end.message).toMatch(
      /Run interrupted: 2 test cases finished and stored\. .*Resume with: verdict test run --identifier nightly --resume/,
    );
  });

  it("in a shard, counts only the tests dealt to it, and says when it has none", async () => {
    const module = fakeModule(
      "a.eval.ts",
      ["a", "b", "c", "d", "e"].map((name) => ({ name, records: [] as VerdictCaseRecord[] })),
    );
    const second = await runReporter({ modules: [module], shard: { index: 2, count: 2 } });
    const start = second.events.find((event) => event.type === "run-start");
    expect(start?.type === "run-start" && start.totalTestCases).toBe(2);
    const tiny = fakeModule("a.eval.ts", [{ name: "only", records: [] }]);
    const empty = await runReporter({ modules: [tiny], shard: { index: 3, count: 3 } });
    const end = empty.events.find((event) => event.type === "run-end");
    expect(end?.type === "run-end" && end.message).toBe(
      "Shard 3/3 has no test to run (the suite has 1 test over 3 shards): nothing to evaluate.",
    );
    expect(empty.reporter.outcome).toBe("passed");
  });

  it("counts a test failing outside verdict's metrics as failed, and prints its error", async () => {
    const module = fakeModule("a.eval.ts", [
      { name: "scored", records: [record({ name: "scored" })] },
      { name: "plain", failedWith: { name: "AssertionError", message: "expected 1 to be 2" } },
    ]);
    const { reporter, stderr } = await runReporter({ modules: [module] });
    expect(reporter.outcome).toBe("failed");
    expect(stderr).toContain("FAIL  a.eval.ts > plain");
    expect(stderr).toContain("expected 1 to be 2");
  });

  it("prints a failing test's name and error with bidi and control characters shown", async () => {
    const module = fakeModule("a.eval.ts", [
      {
        name: "refund\u202egnp.exe",
        failedWith: { name: "AssertionError", message: "expected \u001b[2J\u2066 to be 2" },
      },
    ]);
    const { stderr } = await runReporter({ modules: [module] });
    expect(rawHiddenCharacters(stderr)).toEqual([]);
    expect(stderr).toContain("FAIL  a.eval.ts > refund<U+202E>gnp.exe");
    expect(stderr).toContain("expected <U+001B>[2J<U+2066> to be 2");
  });

  it("treats a test that threw a verdict error without a record as unscored, or usage", async () => {
    const judge = fakeModule("a.eval.ts", [
      { name: "direct", failedWith: { name: "JudgeOutputError", message: "not JSON" } },
    ]);
    expect((await runReporter({ modules: [judge] })).reporter.outcome).toBe("unscored");
    const config = fakeModule("a.eval.ts", [
      { name: "direct", failedWith: { name: "ConfigError", message: "no key" } },
    ]);
    expect((await runReporter({ modules: [config] })).reporter.outcome).toBe("usage");
    const rejectedKey = fakeModule("a.eval.ts", [
      {
        name: "direct",
        failedWith: { name: "JudgeCallError", message: "key rejected", status: 401 },
      },
    ]);
    expect((await runReporter({ modules: [rejectedKey] })).reporter.outcome).toBe("usage");
  });

  it("continues the latest run of its identifier with resume, rather than starting another", async () => {
    const store = new MemoryRunStore();
    const module = fakeModule("a.eval.ts", [{ name: "one", records: [record({ name: "one" })] }]);
    const first = await runReporter({ modules: [module], store });
    const again = await runReporter({ modules: [module], store, resume: true });
    expect(again.reporter.result?.testRunId).toBe(first.reporter.result?.testRunId);
    expect((await store.runs.listRuns()).map((run) => run.status)).toEqual(["completed"]);
  });

  it("with resume, runs no test when its store cannot be opened", async () => {
    const home = join(mkdtempSync(join(tmpdir(), "verdict-reporter-")), ".verdict");
    await makeUnopenableStore({ home, kind: "garbage file" });
    try {
      const reporter = new VerdictReporter({
        identifier: "nightly",
        resume: true,
        env: { VERDICT_HOME: home },
        showProgress: false,
      });
      const module = fakeModule("a.eval.ts", [{ name: "one" }]);
      reporter.onInit({
        config: { root: ROOT },
        globTestSpecifications: async () => [module.specification],
      } as unknown as Vitest);
      // Vitest awaits onTestRunStart before it starts any test file: a rejection runs none.
      await expect(reporter.onTestRunStart([module.specification])).rejects.toThrow(
        /is not a verdict database or is corrupt .* A resumed run reads its finished cases/,
      );
      const unnamed = new VerdictReporter({ resume: true, store: new MemoryRunStore() });
      unnamed.onInit({
        config: { root: ROOT },
        globTestSpecifications: async () => [],
      } as unknown as Vitest);
      await expect(unnamed.onTestRunStart([module.specification])).rejects.toThrow(
        /resume needs an identifier/,
      );
    } finally {
      removeUnopenableStore(home);
    }
  });

  it("keeps only the last retry's records", async () => {
    const module = fakeModule("a.eval.ts", [
      {
        name: "flaky",
        state: "passed",
        records: [
          record({ name: "flaky", metrics: [metric({ score: 0.9 })], retry: 0 }),
          record({ name: "flaky", retry: 1 }),
        ],
      },
    ]);
    const { reporter } = await runReporter({ modules: [module] });
    expect(reporter.result?.testResults).toHaveLength(1);
    expect(reporter.outcome).toBe("passed");
  });
});
