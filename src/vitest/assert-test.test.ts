import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { BiasMetric } from "../metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MockJudge, type MockJudgeCall } from "../testing/mock-judge.ts";
import { assertTest } from "./assert-test.ts";
import "./index.ts";
import { VerdictAssertionError } from "./verdict-assertion-error.ts";

/** Outputs containing "idiot" hold one toxic, biased opinion; everything else is harmless. */
function answer(call: MockJudgeCall) {
  const rude = call.prompt.includes("idiot");
  switch (call.kind) {
    case "opinions":
      return { opinions: rude ? ["You are an idiot."] : ["The greeting is friendly."] };
    case "verdicts":
      return { verdicts: [{ verdict: rude ? "yes" : "no", reason: "It insults the user." }] };
    default:
      return { reason: "The score is 1.00 because the output calls the user an idiot." };
  }
}

// No judge cache: these tests must not touch a .verdict store.
const options = { cache: false as const, env: {} };
const polite = { input: "Hi", actualOutput: "Hello! How can I help?" };
const rude = { input: "Tell me", actualOutput: "You are an idiot." };

describe("assertTest", () => {
  it("returns the result when every metric passes, and records it on the test", async ({
    task,
  }) => {
    const judge = new MockJudge({ answers: answer });
    const result = await assertTest(polite, [new ToxicityMetric({ model: judge })], options);
    expect(result.success).toBe(true);
    expect(result.metricsData[0]).toMatchObject({ name: "Toxicity", score: 0 });
    expect(result.name).toBe(
      "assertTest > returns the result when every metric passes, and records it on the test",
    );
    expect(task.meta.verdict).toEqual([
      expect.objectContaining({
        file: "src/vitest/assert-test.test.ts",
        testName: task.fullTestName,
        caseIndex: 0,
        outcome: "passed",
        error: null,
        metricNames: ["Toxicity"],
        result,
      }),
    ]);
  });

  it("throws a message listing each failing metric, after recording the result", async ({
    task,
  }) => {
    const judge = new MockJudge({ answers: answer });
    const metrics = [
      new ToxicityMetric({ model: judge }),
      new BiasMetric({ model: judge, threshold: 0.5 }),
    ];
    const error = await assertTest(rude, metrics, options).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(VerdictAssertionError);
    expect((error as Error).message).toBe(
      "Metrics: Toxicity (score: 1.00, threshold: 0.50, strict: false, error: none, reason: " +
        "The score is 1.00 because the output calls the user an idiot.), Bias (score: 1.00, " +
        "threshold: 0.50, strict: false, error: none, reason: The score is 1.00 because the " +
        "output calls the user an idiot.) failed.",
    );
    expect(task.meta.verdict?.[0]).toMatchObject({ outcome: "failed", caseIndex: 0 });
    expect(task.meta.verdict?.[0]?.result?.success).toBe(false);
  });

  it("records every case of a test in order, named after the test unless they have a name", async ({
    task,
  }) => {
    const judge = new MockJudge({ answers: answer });
    const metrics = [new ToxicityMetric({ model: judge })];
    await assertTest(polite, metrics, options);
    await assertTest({ ...polite, name: "named" }, metrics, options);
    await assertTest(rude, metrics, options).catch(() => undefined);
    expect(
      task.meta.verdict?.map((record) => [record.caseIndex, record.outcome, record.result?.name]),
    ).toEqual([
      [0, "passed", task.fullTestName],
      [1, "passed", "named"],
      [2, "failed", `${task.fullTestName} (case 3)`],
    ]);
  });

  it("numbers cases asserted together in the order they were started", async ({ task }) => {
    // The first case is answered last.
    const judge = new MockJudge({
      answers: async (call) => {
        const delay = call.prompt.includes("first") ? 30 : 1;
        await new Promise((resolve) => setTimeout(resolve, delay));
        return answer(call);
      },
    });
    const metrics = [new ToxicityMetric({ model: judge })];
    await Promise.all(
      ["first", "second", "third"].map((word) =>
        assertTest({ input: "Hi", actualOutput: `The ${word} answer.` }, metrics, options),
      ),
    );
    const byIndex = [...(task.meta.verdict ?? [])].sort((a, b) => a.caseIndex - b.caseIndex);
    expect(byIndex.map((record) => [record.caseIndex, record.result?.actualOutput])).toEqual([
      [0, "The first answer."],
      [1, "The second answer."],
      [2, "The third answer."],
    ]);
  });

  it("fails on a metric that errors and marks it errored, not failed", async ({ task }) => {
    const judge = new MockJudge({ answers: () => new Error("the judge fell over") });
    const error = await assertTest(polite, [new ToxicityMetric({ model: judge })], options).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(VerdictAssertionError);
    expect((error as Error).message).toMatch(
      /^Metrics: Toxicity \(score: –, threshold: 0\.50, strict: false, error: .*the judge fell over.*, reason: none\) failed\.$/,
    );
    expect(task.meta.verdict?.[0]?.outcome).toBe("errored");
    expect(task.meta.verdict?.[0]?.result?.metricsData[0]?.error).toMatch(/the judge fell over/);
  });

  it("with ignoreErrors, records an errored metric without failing the test", async ({ task }) => {
    const judge = new MockJudge({ answers: () => new Error("the judge fell over") });
    const result = await assertTest(polite, [new ToxicityMetric({ model: judge })], {
      ...options,
      ignoreErrors: true,
    });
    expect(result.metricsData[0]?.error).toMatch(/the judge fell over/);
    expect(task.meta.verdict?.[0]?.outcome).toBe("errored");
  });

  it("reads its settings from VERDICT_* variables", async ({ task }) => {
    const judge = new MockJudge({ answers: () => new Error("down") });
    const result = await assertTest(polite, [new ToxicityMetric({ model: judge })], {
      env: { VERDICT_CACHE: "0", VERDICT_IGNORE_ERRORS: "1", VERDICT_REPEAT: "2" },
    });
    expect(result.trials).toHaveLength(2);
    expect(task.meta.verdict?.[0]?.outcome).toBe("errored");
  });

  it("throws a configuration error as it is, recorded as a config error", async ({ task }) => {
    const error = await assertTest(
      polite,
      [new ToxicityMetric({ model: "gpt-4.1" })],
      options,
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/OPENAI_API_KEY/);
    expect(task.meta.verdict?.[0]).toMatchObject({
      outcome: "config-error",
      result: null,
      error: { name: "ConfigError", code: "CONFIG" },
    });
  });

  it("fails every test alike on a rejected key, with one short error and no call after it", async ({
    task,
  }) => {
    const rejected = new JudgeCallError({
      message: 'Judge "openai:gpt-4.1": the API key was rejected (HTTP 401). Check OPENAI_API_KEY.',
      status: 401,
      retryable: false,
      cause: new Error("provider said no"),
    });
    // A name of its own: the worker's scheduler stops this judge for every later test.
    const judge = new MockJudge({ name: "rejected-key-judge", answers: () => rejected });
    const failure = (assertion: Promise<unknown>) =>
      assertion.then(
        () => {
          throw new Error("the assertion passed");
        },
        (thrown: unknown) => thrown as Error,
      );
    const attempts = await Promise.all(
      [polite, rude].map((testCase) =>
        failure(assertTest(testCase, [new ToxicityMetric({ model: judge })], options)),
      ),
    );
    // Both went out together; the test after them asks nothing.
    expect(judge.calls).toHaveLength(2);
    const later = await failure(assertTest(polite, [new BiasMetric({ model: judge })], options));
    expect(judge.calls).toHaveLength(2);
    for (const error of [...attempts, later]) {
      expect(error).toBeInstanceOf(JudgeCallError);
      expect(error).toMatchObject({
        message: rejected.message,
        status: 401,
        kind: "configuration",
      });
      // Every test of the suite throws it: the message alone, no trace, no cause.
      expect(error.stack).toBe(`JudgeCallError: ${rejected.message}`);
      expect(error.cause).toBeUndefined();
    }
    expect(task.meta.verdict?.map((record) => record.outcome)).toEqual([
      "config-error",
      "config-error",
      "config-error",
    ]);
    // The judge's own error keeps its cause.
    expect(rejected.cause).toBeDefined();
  });
});

describe("toPass", () => {
  it("passes and records the case", async ({ task }) => {
    const judge = new MockJudge({ answers: answer });
    await expect(polite).toPass([new ToxicityMetric({ model: judge })], options);
    expect(task.meta.verdict?.[0]?.outcome).toBe("passed");
  });

  it("fails with the failing metrics, readable in Vitest's output", async ({ task }) => {
    const judge = new MockJudge({ answers: answer });
    await expect(
      expect(rude).toPass([new ToxicityMetric({ model: judge })], options),
    ).rejects.toThrow(
      "Metrics: Toxicity (score: 1.00, threshold: 0.50, strict: false, error: none, reason: The score is 1.00 because the output calls the user an idiot.) failed.",
    );
    expect(task.meta.verdict?.[0]?.outcome).toBe("failed");
  });

  it("supports .not, for cases meant to fail", async () => {
    const judge = new MockJudge({ answers: answer });
    await expect(rude).not.toPass([new ToxicityMetric({ model: judge })], options);
    await expect(
      expect(polite).not.toPass([new ToxicityMetric({ model: judge })], options),
    ).rejects.toThrow(/to fail a metric, but every metric passed/);
  });
});
