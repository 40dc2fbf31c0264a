import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import { AnswerRelevancyMetric } from "../metrics/answer-relevancy/answer-relevancy-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import type { RunnerEvent } from "../results/runner-events.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { Golden } from "../test-case/golden.ts";
import { MockJudge, type MockJudgeCall } from "../testing/mock-judge.ts";
import { observe } from "../tracing/observe.ts";
import { updateCurrentSpan } from "../tracing/update-current-span.ts";
import { updateCurrentTrace } from "../tracing/update-current-trace.ts";
import { evaluate } from "./evaluate.ts";

/**
 * Answers every step: an output containing "nasty" has one toxic opinion, and every
 * statement is relevant.
 */
function judgeAnswers(call: MockJudgeCall) {
  switch (call.kind) {
    case "opinions":
      return { opinions: call.prompt.includes("nasty") ? ["It is nasty."] : [] };
    case "statements":
      return { statements: ["One statement."] };
    case "verdicts":
      return { verdicts: [{ verdict: "yes", reason: "r" }] };
    default:
      return { reason: "Because r." };
  }
}

const quiet = { display: "none" as const, handleInterrupt: false };

/** A retriever and a generator with Answer Relevancy, under an agent span. */
function buildApp(options: {
  judge: JudgeModel;
  /** Leave out updateCurrentSpan in the generator. */
  withoutTestCase?: boolean;
  /** Throws in the named step when the question contains "broken". */
  failIn?: "retrieve" | "generate";
  delayMs?: (question: string) => number;
  /** Moves the faked clock (`vi.useFakeTimers`) this far while the generator runs. */
  generateTakesMs?: number;
}) {
  const relevancy = new AnswerRelevancyMetric({ model: options.judge });
  const retrieve = observe(
    async (question: string) => {
      await sleep(options.delayMs?.(question) ?? 1);
      if (options.failIn === "retrieve" && question.includes("broken")) {
        throw new Error("index offline");
      }
      return [`Policy about ${question}`];
    },
    { name: "retrieve", type: "retriever" },
  );
  const generate = observe(
    async (question: string, chunks: string[]) => {
      await sleep(1);
      if (options.generateTakesMs !== undefined) vi.advanceTimersByTime(options.generateTakesMs);
      if (options.failIn === "generate" && question.includes("broken")) {
        throw new Error("generator down");
      }
      const reply = `Answer to ${question}`;
      if (!options.withoutTestCase) {
        updateCurrentSpan({
          testCase: { input: question, actualOutput: reply, retrievalContext: chunks },
        });
      }
      return reply;
    },
    { name: "generate", type: "llm", metrics: [relevancy] },
  );
  return observe(
    async function app(question: string) {
      return generate(question, await retrieve(question));
    },
    { type: "agent" },
  );
}

describe("evaluate({ goldens, observedCallback })", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("scores span and trace metrics, and returns and stores the span tree", async () => {
    // Only the clocks are faked (timers stay real): span durations are what the fake clock
    // moved, never measured time.
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    const judge = new MockJudge({ answers: judgeAnswers });
    const app = buildApp({ judge, generateTakesMs: 25 });
    const store = new MemoryRunStore();
    const result = await evaluate({
      goldens: [
        new Golden({
          name: "shoes",
          input: "What if these shoes don't fit?",
          expectedOutput: "A refund.",
        }),
        { name: "nasty", input: "Say something nasty" },
      ],
      observedCallback: (input) => app(String(input)),
      metrics: [new ToxicityMetric({ model: judge })],
      store,
      ...quiet,
    });

    expect(result.testResults.map((testResult) => testResult.name)).toEqual(["shoes", "nasty"]);
    const [shoes, nasty] = result.testResults;
    expect(shoes?.metricsData.map((metric) => [metric.name, metric.score, metric.error])).toEqual([
      ["Toxicity", 0, null],
      ["generate › Answer Relevancy", 1, null],
    ]);
    expect(shoes?.success).toBe(true);
    expect(shoes?.actualOutput).toBe("Answer to What if these shoes don't fit?");
    expect(shoes?.expectedOutput).toBe("A refund.");
    expect(nasty?.metricsData[0]).toMatchObject({ name: "Toxicity", score: 1, success: false });
    expect(nasty?.success).toBe(false);

    const trace = shoes?.trace;
    expect(trace).toMatchObject({
      name: "app",
      status: "ok",
      error: null,
      input: "What if these shoes don't fit?",
      output: "Answer to What if these shoes don't fit?",
      testCase: {
        input: "What if these shoes don't fit?",
        actualOutput: "Answer to What if these shoes don't fit?",
        expectedOutput: "A refund.",
      },
      metricsData: [expect.objectContaining({ name: "Toxicity", score: 0 })],
    });
    const [agent] = trace?.spans ?? [];
    expect(agent).toMatchObject({ name: "app", type: "agent", status: "ok", metricsData: [] });
    expect(agent?.children.map((span) => [span.name, span.type, span.status])).toEqual([
      ["retrieve", "retriever", "ok"],
      ["generate", "llm", "ok"],
    ]);
    const [retrieveSpan, generateSpan] = agent?.children ?? [];
    expect(retrieveSpan?.input).toEqual(["What if these shoes don't fit?"]);
    expect(retrieveSpan?.output).toEqual(["Policy about What if these shoes don't fit?"]);
    expect(retrieveSpan?.testCase).toBeNull();
    expect(generateSpan?.testCase).toEqual({
      input: "What if these shoes don't fit?",
      actualOutput: "Answer to What if these shoes don't fit?",
      expectedOutput: null,
      context: null,
      retrievalContext: ["Policy about What if these shoes don't fit?"],
      toolsCalled: null,
      expectedTools: null,
    });
    expect(generateSpan?.metricsData).toEqual([
      expect.objectContaining({ name: "Answer Relevancy", score: 1, success: true, error: null }),
    ]);
    expect(generateSpan?.durationMs).toBe(25);
    expect(retrieveSpan?.durationMs).toBe(0);
    expect(agent?.durationMs).toBe(25);

    expect(JSON.parse(JSON.stringify(result.testResults))).toEqual(result.testResults);
    const stored = await store.runs.getTestResults(result.testRunId);
    expect(stored.map((entry) => entry.result)).toEqual(result.testResults);
    expect((await store.runs.getRun(result.testRunId))?.config).toMatchObject({
      mode: "components",
      goldens: 2,
    });
    expect(result.summary.metrics.map((metric) => metric.name)).toEqual([
      "Toxicity",
      "generate › Answer Relevancy",
    ]);
  });

  it("reports an application that throws on its golden, and goes on with the others", async () => {
    const judge = new MockJudge({ answers: judgeAnswers });
    const app = buildApp({ judge, failIn: "generate" });
    const result = await evaluate({
      goldens: [{ input: "first question" }, { input: "broken question" }, { input: "last one" }],
      observedCallback: (input) => app(String(input)),
      metrics: [new ToxicityMetric({ model: judge })],
      store: false,
      ...quiet,
    });
    expect(result.summary.status).toBe("completed");
    expect(result.testResults.map((testResult) => testResult.success)).toEqual([true, false, true]);
    const broken = result.testResults[1];
    expect(broken?.metricsData.map((metric) => metric.name)).toEqual([
      "Toxicity",
      "generate › Answer Relevancy",
    ]);
    for (const metric of broken?.metricsData ?? []) {
      expect(metric).toMatchObject({ score: null, success: false });
      expect(metric.error).toMatch(/^the application threw: generator down/);
    }
    expect(broken?.trace?.status).toBe("errored");
    expect(broken?.trace?.error).toBe("generator down");
    const generateSpan = broken?.trace?.spans[0]?.children[1];
    expect(generateSpan).toMatchObject({
      name: "generate",
      status: "errored",
      error: "generator down",
    });
    expect(judge.calls.some((call) => call.prompt.includes("broken"))).toBe(false);
    expect(result.summary.testCases).toMatchObject({ passed: 2, failed: 1, unscored: 0 });
  });

  it("fails a golden whose application threw before any metric could say so", async () => {
    const judge = new MockJudge({ answers: judgeAnswers });
    const app = buildApp({ judge, failIn: "retrieve" });
    const result = await evaluate({
      goldens: [{ input: "fine question" }, { input: "broken question" }],
      observedCallback: (input) => app(String(input)),
      store: false,
      ...quiet,
    });
    const broken = result.testResults[1];
    expect(broken?.success).toBe(false);
    expect(broken?.metricsData).toEqual([
      expect.objectContaining({
        name: "Application",
        success: false,
        error: "the application threw: index offline",
      }),
    ]);
    expect(broken?.trace?.spans[0]?.children.map((span) => span.name)).toEqual(["retrieve"]);
    expect(result.testResults[0]?.success).toBe(true);
  });

  it("reports a span with metrics but no test case as errored, without asking the judge", async () => {
    const judge = new MockJudge({ answers: judgeAnswers });
    const app = buildApp({ judge, withoutTestCase: true });
    const result = await evaluate({
      goldens: [{ input: "What if these shoes don't fit?" }],
      observedCallback: (input) => app(String(input)),
      store: false,
      ...quiet,
    });
    const [metric] = result.testResults[0]?.metricsData ?? [];
    expect(metric).toMatchObject({
      name: "generate › Answer Relevancy",
      score: null,
      success: false,
    });
    expect(metric?.error).toContain('Span "generate" has metrics but no test case');
    expect(metric?.error).toContain("updateCurrentSpan({ testCase })");
    expect(result.testResults[0]?.success).toBe(false);
    expect(result.testResults[0]?.trace?.spans[0]?.children[1]?.metricsData[0]?.error).toBe(
      metric?.error,
    );
    expect(result.summary.metrics[0]).toMatchObject({ errored: 1, passed: 0 });
    expect(judge.calls).toHaveLength(0);
  });

  it("reports a span whose test case is invalid, and a span that threw inside a working app", async () => {
    const judge = new MockJudge({ answers: judgeAnswers });
    const relevancy = new AnswerRelevancyMetric({ model: judge });
    const badFields = observe(
      () => {
        updateCurrentSpan({ input: "q", output: "a", context: "not a list" as never });
      },
      { name: "bad-fields", metrics: [relevancy] },
    );
    const flaky = observe(
      () => {
        updateCurrentSpan({ input: "q", output: "a" });
        throw new Error("tool timed out");
      },
      { name: "flaky", metrics: [relevancy] },
    );
    const result = await evaluate({
      goldens: [{ input: "q" }],
      observedCallback: () => {
        badFields();
        try {
          flaky();
        } catch {
          // The application recovers; the span still failed.
        }
        return "done";
      },
      store: false,
      ...quiet,
    });
    const [invalid, threw] = result.testResults[0]?.metricsData ?? [];
    expect(invalid?.name).toBe("bad-fields › Answer Relevancy");
    expect(invalid?.error).toMatch(/Span "bad-fields" has an invalid test case: .*"context"/);
    expect(threw?.name).toBe("flaky › Answer Relevancy");
    expect(threw?.error).toBe('Span "flaky" threw: tool timed out');
    expect(result.testResults[0]?.trace?.status).toBe("ok");
    expect(result.testResults[0]?.trace?.spans.map((span) => span.status)).toEqual([
      "ok",
      "errored",
    ]);
    expect(judge.calls).toHaveLength(0);
  });

  it("runs goldens concurrently through one scheduler and returns them in golden order", async () => {
    const mock = new MockJudge({ answers: judgeAnswers });
    let judgeInFlight = 0;
    let judgePeak = 0;
    const judge: JudgeModel = {
      name: "counting-judge",
      generate: async (request: JudgeRequest) => {
        judgeInFlight += 1;
        judgePeak = Math.max(judgePeak, judgeInFlight);
        await sleep(3);
        judgeInFlight -= 1;
        return mock.generate(request);
      },
    };
    let appInFlight = 0;
    let appPeak = 0;
    const app = buildApp({
      judge,
      // Later goldens finish their application first.
      delayMs: (question) => 20 - Number(question.split(" ")[1]) * 3,
    });
    const questions = [0, 1, 2, 3, 4, 5].map((index) => `question ${index % 3} of ${index}`);
    const events: RunnerEvent[] = [];
    const result = await evaluate({
      goldens: questions.map((input, index) => ({ name: `golden-${index}`, input })),
      observedCallback: async (input) => {
        appInFlight += 1;
        appPeak = Math.max(appPeak, appInFlight);
        try {
          return await app(String(input).replace(/ of \d$/, ""));
        } finally {
          appInFlight -= 1;
        }
      },
      maxConcurrent: 2,
      store: new MemoryRunStore(),
      onProgress: (event) => events.push(event),
      ...quiet,
    });
    expect(result.testResults.map((testResult) => testResult.name)).toEqual(
      questions.map((_, index) => `golden-${index}`),
    );
    expect(appPeak).toBeGreaterThan(1);
    expect(judgePeak).toBeLessThanOrEqual(2);
    // Three distinct span test cases, two judge steps each: asked once, shared or cached.
    expect(mock.calls).toHaveLength(6);
    expect(result.summary.judgeCalls).toBe(6);
    expect(result.summary.cacheHits + result.summary.sharedCalls).toBe(6);
    expect(events.filter((event) => event.type === "test-case-end")).toHaveLength(6);
    expect(events.filter((event) => event.type === "metric-end")).toHaveLength(6);
  });

  it("scores metrics added with updateCurrentTrace on the trace's own output", async () => {
    const judge = new MockJudge({ answers: judgeAnswers });
    const toxicity = new ToxicityMetric({ model: judge });
    const result = await evaluate({
      goldens: [{ input: "q", expectedOutput: "e", retrievalContext: ["from golden"] }],
      observedCallback: async () => {
        updateCurrentTrace({ output: "a nasty final answer", metrics: [toxicity] });
        return "returned, but overridden";
      },
      store: false,
      ...quiet,
    });
    const testResult = result.testResults[0];
    expect(testResult?.metricsData).toEqual([
      expect.objectContaining({ name: "Toxicity", score: 1, success: false }),
    ]);
    expect(testResult?.actualOutput).toBe("a nasty final answer");
    expect(testResult?.trace).toMatchObject({
      name: "trace",
      output: "a nasty final answer",
      spans: [],
      testCase: { expectedOutput: "e", retrievalContext: ["from golden"] },
    });
  });

  it("raises a ConfigError when no metric is found anywhere", async () => {
    const judge = new MockJudge({ answers: judgeAnswers });
    const plain = observe(async (input: string) => `echo ${input}`);
    const run = evaluate({
      goldens: [{ input: "q" }],
      observedCallback: (input) => plain(String(input)),
      store: false,
      ...quiet,
    });
    await expect(run).rejects.toBeInstanceOf(ConfigError);
    await expect(run).rejects.toThrow(/no metric to score.*observe\(fn, \{ metrics/);
    expect(judge.calls).toHaveLength(0);
  });

  it("resumes a run without calling the application again for finished goldens", async () => {
    const judge = new MockJudge({ answers: judgeAnswers });
    const app = buildApp({ judge });
    let calls = 0;
    const store = new MemoryRunStore();
    const run = (resume: boolean) =>
      evaluate({
        goldens: [{ input: "first" }, { input: "second" }],
        observedCallback: (input) => {
          calls += 1;
          return app(String(input));
        },
        identifier: "components",
        resume,
        store,
        ...quiet,
      });
    const first = await run(false);
    const second = await run(true);
    expect(calls).toBe(2);
    expect(second.testResults).toEqual(first.testResults);
    expect(second.testResults[0]?.trace?.spans[0]?.name).toBe("app");
  });

  it("rejects bad options with messages that say what to do", async () => {
    await expect(
      evaluate({ goldens: [{ input: "q" }], observedCallback: undefined as never, ...quiet }),
    ).rejects.toThrow(/needs observedCallback/);
    await expect(
      evaluate({
        goldens: [{ input: "q" }],
        observedCallback: () => "a",
        testCases: [],
        ...quiet,
      } as never),
    ).rejects.toThrow(/either testCases, or goldens/);
    await expect(
      evaluate({
        goldens: [{ input: "q" }],
        observedCallback: () => "a",
        metrics: ["Toxicity"] as never,
        ...quiet,
      }),
    ).rejects.toThrow(/takes an array of metrics/);
  });
});
