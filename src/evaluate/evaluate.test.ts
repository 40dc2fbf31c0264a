import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { answer } from "../../test/fixtures/judge-answers.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { JudgeOutputError } from "../errors/judge-output-error.ts";
import { MissingTestCaseParamsError } from "../errors/missing-test-case-params-error.ts";
import { AnswerRelevancyMetric } from "../metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { createConsoleReporter } from "../report/console-report.ts";
import { createJsonReporter, parseJsonReport } from "../report/json-report.ts";
import type { RunnerEvent } from "../results/runner-events.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { readTestResults } from "../store/read-test-results.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { evaluate } from "./evaluate.ts";
import { JudgeScheduler } from "./scheduler.ts";

const quiet = { display: "none" as const, handleInterrupt: false };

describe("evaluate", () => {
  it("returns results in input order, with a summary per metric, without mutating metrics", async () => {
    const judge = new MockJudge({ answers: answer, latencyMs: 1 });
    const toxicity = new ToxicityMetric({ model: judge, threshold: 0.3 });
    const testCases = Array.from({ length: 6 }, (_, index) => ({
      name: `case-${index}`,
      input: "q",
      actualOutput: index % 2 === 0 ? `nasty output ${index}` : `fine output ${index}`,
    }));
    const result = await evaluate({
      testCases,
      metrics: [toxicity],
      store: new MemoryRunStore(),
      ...quiet,
    });
    expect(result.testResults.map((testResult) => testResult.name)).toEqual(
      testCases.map((testCase) => testCase.name),
    );
    expect(result.testResults[0]?.metricsData[0]?.score).toBeGreaterThan(0);
    expect(result.testResults[1]?.metricsData[0]?.score).toBe(0);
    expect(result.summary.status).toBe("completed");
    expect(result.summary.metrics).toEqual([
      expect.objectContaining({ name: "Toxicity", passed: 3, failed: 3, errored: 0 }),
    ]);
    expect(result.summary.testCases).toEqual({
      total: 6,
      passed: 3,
      failed: 3,
      unscored: 0,
      errored: 0,
    });
    expect(result.summary.judges).toEqual(["mock-judge"]);
    expect(toxicity.score).toBeNull();
    expect(toxicity.judgeCalls).toBe(0);
  });

  it("keeps only the summary with keepResults: false, the results going to the store and reporters", async () => {
    const testCases = Array.from({ length: 12 }, (_, index) => ({
      name: `case-${index}`,
      input: "q",
      actualOutput: index % 3 === 0 ? `nasty output ${index}` : `fine output ${index}`,
    }));
    const run = async (keepResults: boolean) => {
      const store = new MemoryRunStore();
      const finished: number[] = [];
      const folder = mkdtempSync(join(tmpdir(), "verdict-keep-"));
      const file = join(folder, "report.json");
      const result = await evaluate({
        reporters: [createJsonReporter({ file })],
        testCases,
        metrics: [
          new ToxicityMetric({ model: new MockJudge({ answers: answer, latencyMs: 1 }) }),
          new BiasMetric({ model: new MockJudge({ answers: answer }) }),
        ],
        store,
        keepResults,
        maxConcurrent: 4,
        onProgress: (event) => {
          if (event.type === "test-case-end") finished.push(event.result.index);
        },
        ...quiet,
      });
      const stored = [];
      for await (const entry of readTestResults(store, result.testRunId, { pageSize: 5 })) {
        stored.push(entry.result);
      }
      const reported = parseJsonReport({
        text: readFileSync(file, "utf8"),
        source: file,
      }).testResults;
      rmSync(folder, { recursive: true, force: true });
      return { result, stored, finished, reported };
    };
    const kept = await run(true);
    const summaryOnly = await run(false);
    expect(summaryOnly.result.testResults).toEqual([]);
    const { durationMs: _one, ...keptSummary } = kept.result.summary;
    const { durationMs: _two, ...onlySummary } = summaryOnly.result.summary;
    expect(onlySummary).toEqual(keptSummary);
    expect(summaryOnly.result.summary.testCases).toMatchObject({ total: 12, unscored: 0 });
    expect(summaryOnly.result.summary.metrics.map((metric) => metric.name)).toEqual([
      "Toxicity",
      "Bias",
    ]);
    expect(summaryOnly.stored.map((result) => result.name)).toEqual(
      testCases.map((testCase) => testCase.name),
    );
    expect(summaryOnly.finished.toSorted((a, b) => a - b)).toEqual(testCases.map((_, i) => i));
    // A file report still holds every case, gathered as they finished.
    const shown = (reported: typeof kept.reported) =>
      reported.map((result) => [
        result.name,
        result.success,
        result.metricsData.map((m) => m.score),
      ]);
    expect(shown(summaryOnly.reported)).toEqual(shown(kept.reported));
    expect(summaryOnly.reported).toHaveLength(12);
  });

  it("reports every case of a keepResults: false run: the console its failing ones, a resumed run's file all of them", async () => {
    const testCases = Array.from({ length: 7 }, (_, index) => ({
      name: `case-${index}`,
      input: "q",
      actualOutput: index === 2 ? `nasty output ${index}` : `fine output ${index}`,
    }));
    const metrics = [
      new ToxicityMetric({ model: new MockJudge({ answers: answer }), threshold: 0.3 }),
    ];
    const store = new MemoryRunStore();
    // A first run scores six cases; the second reuses them and scores the seventh.
    await evaluate({
      testCases: testCases.slice(0, 6),
      metrics,
      store,
      identifier: "nightly",
      ...quiet,
    });
    const folder = mkdtempSync(join(tmpdir(), "verdict-keep-"));
    const file = join(folder, "report.json");
    let printed = "";
    const stream = {
      write: (text: string) => {
        printed += text;
        return true;
      },
      isTTY: false,
      columns: 80,
    };
    const result = await evaluate({
      testCases,
      metrics,
      store,
      identifier: "nightly",
      resume: true,
      keepResults: false,
      ...quiet,
      reporters: [
        createJsonReporter({ file }),
        createConsoleReporter({ stream: stream as never, display: "failing", color: false }),
      ],
    });
    const reported = parseJsonReport({ text: readFileSync(file, "utf8"), source: file });
    rmSync(folder, { recursive: true, force: true });
    expect(result.testResults).toEqual([]);
    expect(reported.testResults.map((testResult) => testResult.name)).toEqual(
      testCases.map((testCase) => testCase.name),
    );
    expect(printed).toContain("case-2");
    expect(printed).not.toContain("No test cases were evaluated");
    expect(printed).toContain("6 test cases not shown");
  });

  it("keeps each metric's steps as data and every judge call, paid or from the cache", async () => {
    const judge = new MockJudge({ answers: answer });
    const store = new MemoryRunStore();
    const run = () =>
      evaluate({
        testCases: [
          {
            input: "q",
            actualOutput: "a nasty answer",
            tags: ["smoke"],
            context: ["Ground truth."],
            retrievalContext: ["Fetched."],
          },
        ],
        metrics: [new ToxicityMetric({ model: judge })],
        store,
        ...quiet,
      });
    const first = (await run()).testResults[0];
    expect(first).toMatchObject({
      tags: ["smoke"],
      context: ["Ground truth."],
      retrievalContext: ["Fetched."],
    });
    const metric = first?.metricsData[0];
    expect(metric?.steps).toEqual([
      { label: "Opinions", value: ["It is nasty.", "It is fine."] },
      {
        label: "Verdicts",
        value: [
          { verdict: "yes", reason: "r" },
          { verdict: "no", reason: "r" },
        ],
      },
    ]);
    expect(metric?.calls?.map((call) => [call.step, call.model, call.source])).toEqual([
      ["generateOpinions", "mock-judge", "judge"],
      ["generateVerdicts", "mock-judge", "judge"],
      ["generateReason", "mock-judge", "judge"],
    ]);
    for (const call of metric?.calls ?? []) {
      expect(call.latencyMs).toBeGreaterThanOrEqual(0);
      expect(call.inputTokens).toBeGreaterThan(0);
    }
    // The same case again: every answer comes from the store's judge cache.
    const again = (await run()).testResults[0]?.metricsData[0];
    expect(again?.calls?.map((call) => call.source)).toEqual(["cache", "cache", "cache"]);
    expect(again?.calls?.length).toBe(again?.judgeCalls);
  });

  it("asks the shared opinion question once when Toxicity and Bias run on a case", async () => {
    const together = new MockJudge({ answers: answer });
    await evaluate({
      testCases: [{ input: "q", actualOutput: "nasty words" }],
      metrics: [
        new ToxicityMetric({ model: together }),
        new BiasMetric({ model: together }),
        new AnswerRelevancyMetric({ model: together }),
      ],
      store: false,
      ...quiet,
    });
    const separate = new MockJudge({ answers: answer });
    for (const metric of [
      new ToxicityMetric({ model: separate }),
      new BiasMetric({ model: separate }),
      new AnswerRelevancyMetric({ model: separate }),
    ]) {
      await metric.measure({ input: "q", actualOutput: "nasty words" });
    }
    expect(together.callsOfKind("opinions")).toHaveLength(1);
    expect(separate.callsOfKind("opinions")).toHaveLength(2);
    expect(together.calls.length).toBeLessThan(separate.calls.length);
  });

  it("stops on a metric error unless ignoreErrors, keeping finished cases in the store", async () => {
    const judge = new MockJudge({
      answers: (call) => (call.prompt.includes("broken") ? "not json" : answer(call)),
    });
    const testCases = [
      { name: "ok", input: "q", actualOutput: "fine" },
      { name: "bad", input: "q", actualOutput: "broken" },
    ];
    const ignoring = await evaluate({
      testCases,
      metrics: [new ToxicityMetric({ model: judge })],
      ignoreErrors: true,
      store: false,
      ...quiet,
    });
    const failed = ignoring.testResults[1]?.metricsData[0];
    expect(failed?.score).toBeNull();
    expect(failed?.success).toBe(false);
    expect(failed?.error).toContain("even after one re-ask");
    expect(ignoring.summary.metrics[0]?.errored).toBe(1);

    const store = new MemoryRunStore();
    await expect(
      evaluate({
        testCases,
        metrics: [new ToxicityMetric({ model: judge })],
        store,
        maxConcurrent: 1,
        identifier: "x",
        ...quiet,
      }),
    ).rejects.toBeInstanceOf(JudgeOutputError);
    const run = await store.runs.getRun("x");
    expect(run?.status).toBe("failed");
    const stored = await store.runs.getTestResults(run?.id ?? "");
    expect(stored.map((entry) => entry.result.name)).toEqual(["ok"]);
  });

  it.each([
    ["a rejected key", 401, false],
    ["an unknown model, even with ignoreErrors", 404, true],
  ])(
    "stops at %s: throws it once, sends nothing more, marks the run failed",
    async (_label, status, ignoreErrors) => {
      const rejected = new JudgeCallError({
        message: `Judge "mock": HTTP ${status}. Check OPENAI_API_KEY.`,
        status,
        retryable: false,
      });
      const judge = new MockJudge({
        answers: () => {
          throw rejected;
        },
      });
      const store = new MemoryRunStore();
      const events: RunnerEvent[] = [];
      const run = evaluate({
        testCases: Array.from({ length: 20 }, (_, index) => ({
          name: `case ${index}`,
          input: "q",
          actualOutput: `answer ${index}`,
        })),
        metrics: [new ToxicityMetric({ model: judge }), new BiasMetric({ model: judge })],
        maxConcurrent: 2,
        ignoreErrors,
        store,
        identifier: "misconfigured",
        onProgress: (event) => events.push(event),
        ...quiet,
      });
      await expect(run).rejects.toBe(rejected);
      // At most the two requests in flight when the first answer came; nothing after.
      expect(judge.calls.length).toBeLessThanOrEqual(2);
      const stored = await store.runs.getRun("misconfigured");
      expect(stored?.status).toBe("failed");
      expect(await store.runs.getTestResults(stored?.id ?? "")).toEqual([]);
      const end = events.find((event) => event.type === "run-end");
      expect(end?.type === "run-end" && end.result.summary.status).toBe("failed");
    },
  );

  it("skips a metric with missing params (skip wins over ignoreErrors)", async () => {
    const judge = new MockJudge({ answers: answer });
    const result = await evaluate({
      testCases: [{ input: "q", actualOutput: "" }],
      metrics: [new ToxicityMetric({ model: judge })],
      skipOnMissingParams: true,
      ignoreErrors: true,
      store: false,
      ...quiet,
    });
    expect(result.testResults[0]?.metricsData).toEqual([]);
    expect(judge.calls).toHaveLength(0);
  });

  it("repeats each case with distinct trials and counts passed trials", async () => {
    let call = 0;
    const judge = new MockJudge({
      answers: (received) => {
        call += 1;
        // Alternate toxic / not toxic opinions per trial.
        if (received.kind === "opinions") return { opinions: ["x"] };
        if (received.kind === "verdicts")
          return { verdicts: [{ verdict: call % 4 === 2 ? "yes" : "no", reason: "r" }] };
        return { reason: "The score is 1.00 because r." };
      },
    });
    const result = await evaluate({
      testCases: [{ input: "q", actualOutput: "text" }],
      metrics: [new ToxicityMetric({ model: judge })],
      repeat: 3,
      maxConcurrent: 1,
      store: false,
      ...quiet,
    });
    const testResult = result.testResults[0];
    expect(testResult?.trials.map((trial) => trial.trial)).toEqual([0, 1, 2]);
    expect(judge.callsOfKind("opinions")).toHaveLength(3);
    expect(testResult?.passedTrials).toBe(
      testResult?.trials.filter((trial) => trial.success).length,
    );
    expect(testResult?.trials.length).toBe(3);
  });

  it("emits run-start, metric-end, test-case-end and run-end", async () => {
    const events: RunnerEvent[] = [];
    await evaluate({
      testCases: [{ input: "q", actualOutput: "fine" }],
      metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })],
      store: false,
      onProgress: (event) => events.push(event),
      ...quiet,
    });
    expect(events.map((event) => event.type)).toEqual([
      "run-start",
      "metric-end",
      "test-case-end",
      "run-end",
    ]);
  });

  it("marks a cancelled run interrupted and says how to resume", async () => {
    const controller = new AbortController();
    const judge = new MockJudge({
      answers: (call) => {
        if (call.index === 3) controller.abort();
        return answer(call);
      },
    });
    const store = new MemoryRunStore();
    const events: RunnerEvent[] = [];
    const result = await evaluate({
      testCases: Array.from({ length: 20 }, (_, index) => ({
        input: "q",
        actualOutput: `fine ${index}`,
      })),
      metrics: [new ToxicityMetric({ model: judge })],
      maxConcurrent: 1,
      store,
      identifier: "nightly",
      signal: controller.signal,
      onProgress: (event) => events.push(event),
      ...quiet,
    });
    expect(result.summary.status).toBe("interrupted");
    expect(result.summary.testCases.unscored).toBeGreaterThan(0);
    const end = events.at(-1);
    expect(end?.type === "run-end" && end.message).toContain(
      'Resume with evaluate({ identifier: "nightly", resume: true',
    );
    expect((await store.runs.getRun("nightly"))?.status).toBe("interrupted");
  });

  it("rejects bad options with messages that say what to do", async () => {
    const metric = new ToxicityMetric({ model: new MockJudge() });
    await expect(evaluate({ testCases: [], metrics: [], ...quiet })).rejects.toThrow(
      /at least one metric/,
    );
    await expect(
      evaluate({ testCases: [], metrics: [metric], repeat: 0, ...quiet }),
    ).rejects.toThrow(/repeat must be/);
    await expect(
      evaluate({ testCases: [], metrics: [metric], resume: true, ...quiet }),
    ).rejects.toThrow(/resume needs an identifier/);
    // Before any judge call, whatever the store (PostgreSQL refuses NUL in names, SQLite not).
    const judge = new MockJudge();
    await expect(
      evaluate({
        testCases: [{ input: "q", actualOutput: "a" }],
        metrics: [new ToxicityMetric({ model: judge })],
        identifier: "night\u0000ly",
        store: false,
        ...quiet,
      }),
    ).rejects.toThrow(/identifier "night\\u0000ly" holds the NUL character.*remove it/);
    expect(judge.calls).toEqual([]);
    await expect(
      evaluate({ testCases: [], metrics: [metric], maxConcurrent: 0, store: false, ...quiet }),
    ).rejects.toThrow(/maxConcurrent/);
    await expect(
      evaluate({
        testCases: [],
        metrics: [metric],
        metadata: ["v2"] as unknown as Record<string, unknown>,
        ...quiet,
      }),
    ).rejects.toThrow(
      'metadata must be a plain object of JSON values, e.g. { model: "support-bot-v2" }.',
    );
  });

  it("stores metadata with the run's configuration", async () => {
    const store = new MemoryRunStore();
    const metric = new ToxicityMetric({ model: new MockJudge({ answers: answer }) });
    const result = await evaluate({
      testCases: [{ input: "Hi", actualOutput: "Hello." }],
      metrics: [metric],
      metadata: { model: "support-bot-v2", checkpoint: 3 },
      store,
      ...quiet,
    });
    expect((await store.runs.getRun(result.testRunId))?.config.metadata).toEqual({
      model: "support-bot-v2",
      checkpoint: 3,
    });
  });

  it("goes on without the store, with a warning, when the database is corrupt", async () => {
    const home = mkdtempSync(join(tmpdir(), "verdict-corrupt-"));
    writeFileSync(join(home, "verdict.db"), "this is not a database, just some text ".repeat(200));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const events: RunnerEvent[] = [];
      const result = await evaluate({
        testCases: [{ input: "q", actualOutput: "fine" }],
        metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })],
        env: { VERDICT_HOME: home },
        onProgress: (event) => events.push(event),
        ...quiet,
      });
      expect(result.summary.status).toBe("completed");
      expect(result.testResults[0]?.metricsData[0]?.score).toBe(0);
      expect(warn).toHaveBeenCalledTimes(1);
      const warning = String(warn.mock.calls[0]?.[0]);
      expect(warning).toContain(join(home, "verdict.db"));
      expect(warning).toContain("goes on without the store");
      const end = events.at(-1);
      expect(end?.type === "run-end" && end.message).toBe(warning);
    } finally {
      warn.mockRestore();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("keeps running when a reporter throws, and says so once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const result = await evaluate({
        testCases: [
          { input: "q", actualOutput: "fine" },
          { input: "q", actualOutput: "fine too" },
        ],
        metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })],
        store: false,
        onProgress: () => {
          throw new Error("listener bug");
        },
        ...quiet,
      });
      expect(result.testResults).toHaveLength(2);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain(
        "onProgress failed (later failures are not repeated): listener bug",
      );
    } finally {
      warn.mockRestore();
    }
  });

  it("stops and marks the run failed when the store breaks mid-run", async () => {
    const store = new MemoryRunStore();
    const save = store.runs.saveTestResult.bind(store);
    let saves = 0;
    store.runs.saveTestResult = async (runId, stored) => {
      saves += 1;
      if (saves === 2) throw new Error("disk full");
      await save(runId, stored);
    };
    await expect(
      evaluate({
        testCases: Array.from({ length: 5 }, (_, index) => ({
          input: "q",
          actualOutput: `fine ${index}`,
        })),
        metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })],
        store,
        maxConcurrent: 1,
        identifier: "broken-store",
        ...quiet,
      }),
    ).rejects.toThrow("disk full");
    expect((await store.runs.getRun("broken-store"))?.status).toBe("failed");
  });

  it("records on each metric what its cached answers would have cost", async () => {
    const store = new MemoryRunStore();
    const run = () =>
      evaluate({
        testCases: [{ input: "q", actualOutput: "nasty words" }],
        metrics: [
          new ToxicityMetric({
            model: new MockJudge({
              answers: answer,
              usage: { inputTokens: 100, outputTokens: 10 },
              costUsd: 0.01,
            }),
          }),
        ],
        store,
        ...quiet,
      });
    const first = (await run()).testResults[0]?.metricsData[0];
    const second = (await run()).testResults[0]?.metricsData[0];
    expect(first?.saved).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(second?.cachedJudgeCalls).toBe(first?.judgeCalls);
    expect(second?.saved).toEqual({
      inputTokens: first?.inputTokens,
      outputTokens: first?.outputTokens,
      costUsd: first?.evaluationCost,
    });
  });

  it("asks again on the next run when the judge's answer was unusable (bad answers are not cached)", async () => {
    const store = new MemoryRunStore();
    const testCases = [{ input: "q", actualOutput: "fine" }];
    const broken = new MockJudge({ name: "judge", answers: () => "prose, not JSON" });
    const first = await evaluate({
      testCases,
      metrics: [new ToxicityMetric({ model: broken })],
      ignoreErrors: true,
      store,
      ...quiet,
    });
    expect(first.testResults[0]?.metricsData[0]?.error).toContain("even after one re-ask");
    const healthy = new MockJudge({ name: "judge", answers: answer });
    const second = await evaluate({
      testCases,
      metrics: [new ToxicityMetric({ model: healthy })],
      store,
      ...quiet,
    });
    expect(healthy.calls).toHaveLength(1);
    expect(second.testResults[0]?.metricsData[0]?.score).toBe(0);
  });

  it("leaves a shared scheduler usable after a run on it fails", async () => {
    const scheduler = new JudgeScheduler();
    const judge = new MockJudge({ answers: answer });
    await expect(
      evaluate({
        testCases: [{ input: "q", actualOutput: "" }],
        metrics: [new ToxicityMetric({ model: judge })],
        scheduler,
        store: false,
        ...quiet,
      }),
    ).rejects.toBeInstanceOf(MissingTestCaseParamsError);
    const next = await evaluate({
      testCases: [{ input: "q", actualOutput: "fine" }],
      metrics: [new ToxicityMetric({ model: judge })],
      scheduler,
      store: false,
      ...quiet,
    });
    expect(next.summary.status).toBe("completed");
    expect(next.testResults[0]?.metricsData[0]?.score).toBe(0);
  });

  it("counts a case whose score-only metric errored as failed, not passed", async () => {
    const result = await evaluate({
      testCases: [{ input: "q", actualOutput: "fine" }],
      metrics: [
        new ToxicityMetric({
          model: new MockJudge({ answers: () => "not json" }),
          threshold: null,
        }),
      ],
      ignoreErrors: true,
      store: false,
      ...quiet,
    });
    expect(result.testResults[0]?.success).toBe(false);
    expect(result.summary.testCases).toMatchObject({ passed: 0, failed: 1 });
  });

  it("leaves no Ctrl-C listener behind when the store fails while the run opens", async () => {
    const store = new MemoryRunStore();
    store.runs.startRun = async () => {
      throw new Error("store is read-only");
    };
    const listeners = process.listenerCount("SIGINT");
    await expect(
      evaluate({
        testCases: [{ input: "q", actualOutput: "fine" }],
        metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })],
        store,
        display: "none",
        handleInterrupt: true,
      }),
    ).rejects.toThrow("store is read-only");
    expect(process.listenerCount("SIGINT")).toBe(listeners);
  });

  it("leaves no listener, open store or running run behind when an option is refused", async () => {
    const store = new MemoryRunStore();
    const listeners = process.listenerCount("SIGINT");
    await expect(
      evaluate({
        testCases: [{ input: "q", actualOutput: "fine" }],
        metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })],
        store,
        identifier: "refused",
        maxConcurrent: 0,
        display: "none",
        handleInterrupt: true,
      }),
    ).rejects.toThrow("maxConcurrent");
    expect(process.listenerCount("SIGINT")).toBe(listeners);
    expect(await store.runs.getRun("refused")).toBeNull();
  });
});

describe("evaluate() over an iterable of test cases", () => {
  const cases = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      name: `case-${index}`,
      input: "q",
      actualOutput: index % 4 === 0 ? `nasty output ${index}` : `fine output ${index}`,
    }));
  async function* slowly<Case>(list: readonly Case[]) {
    for (const item of list) {
      await new Promise((resolve) => setImmediate(resolve));
      yield item;
    }
  }
  const metrics = () => [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })];

  it("scores cases as they come, as it scores the same cases in an array", async () => {
    const list = cases(30);
    const fromArray = await evaluate({
      testCases: list,
      metrics: metrics(),
      store: false,
      ...quiet,
    });
    const store = new MemoryRunStore();
    const events: RunnerEvent[] = [];
    const streamed = await evaluate({
      testCases: slowly(list),
      metrics: metrics(),
      store,
      keepResults: false,
      maxConcurrent: 3,
      onProgress: (event) => events.push(event),
      ...quiet,
    });
    // The same totals (how requests were saved, shared in flight or cached, may differ).
    expect(streamed.summary.metrics).toEqual(fromArray.summary.metrics);
    expect(streamed.summary.testCases).toEqual(fromArray.summary.testCases);
    const stored = [];
    for await (const entry of readTestResults(store, streamed.testRunId)) stored.push(entry.result);
    expect(stored.map((result) => result.name)).toEqual(list.map((testCase) => testCase.name));
    expect(stored.map((result) => result.success)).toEqual(
      fromArray.testResults.map((result) => result.success),
    );
    // The total grows as cases come, and is final with the last.
    const start = events.find((event) => event.type === "run-start");
    expect(start).toMatchObject({ totalTestCases: 0, totalFinal: false });
    const ends = events.filter((event) => event.type === "test-case-end");
    expect(ends).toHaveLength(30);
    expect(ends.at(-1)).toMatchObject({ totalTestCases: 30, totalFinal: true });
    // A plain iterable, kept results: the same results in index order.
    const kept = await evaluate({
      testCases: new Set(list),
      metrics: metrics(),
      store: false,
      ...quiet,
    });
    expect(kept.testResults.map((result) => result.name)).toEqual(list.map((c) => c.name));
  });

  it("stops at an invalid case unless ignoreErrors, naming it by its place", async () => {
    const list: unknown[] = [...cases(5)];
    list.splice(3, 0, { input: 42 });
    await expect(
      evaluate({ testCases: slowly(list) as never, metrics: metrics(), store: false, ...quiet }),
    ).rejects.toThrow(/Test case #3 .*pass ignoreErrors: true/);
    const result = await evaluate({
      testCases: slowly(list) as never,
      metrics: metrics(),
      store: false,
      ignoreErrors: true,
      ...quiet,
    });
    expect(result.summary.testCases).toMatchObject({ total: 6, errored: 1 });
  });

  it("refuses shard, resume and batch, which need every case up front", async () => {
    for (const extra of [{ shard: "1/2" }, { resume: true, identifier: "x" }, { batch: true }]) {
      await expect(
        evaluate({
          testCases: slowly(cases(2)),
          metrics: metrics(),
          store: false,
          ...quiet,
          ...extra,
        }),
      ).rejects.toThrow(/needs every test case up front: pass testCases as an array/);
    }
  });

  it("closes the source when the run stops early", async () => {
    let closed = false;
    async function* source() {
      try {
        for (const item of cases(50)) yield item;
      } finally {
        closed = true;
      }
    }
    const controller = new AbortController();
    const result = await evaluate({
      testCases: source(),
      metrics: metrics(),
      store: false,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === "test-case-end" && event.finished === 3) controller.abort();
      },
      ...quiet,
    });
    expect(result.summary.status).toBe("interrupted");
    expect(closed).toBe(true);
  });
});
