import { describe, expect, it } from "vitest";
import { ConfigError } from "../../errors/config-error.ts";
import { JudgeOutputError } from "../../errors/judge-output-error.ts";
import { MissingTestCaseParamsError } from "../../errors/missing-test-case-params-error.ts";
import { evaluate } from "../../evaluate/evaluate.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import { describeCustomMetricContract } from "../../testing/metric-contract/custom-metric-contract.ts";
import { type MockAnswer, MockJudge, type MockJudgeCall } from "../../testing/mock-judge.ts";
import { GEval } from "./g-eval-metric.ts";
import { GEvalTemplate } from "./prompts.ts";

const quiet = { display: "none" as const, handleInterrupt: false };
const CRITERIA =
  "Does the actual output follow the refund policy: refunds within 30 days, store credit after?";
const STEPS = ["Find what the customer asks for.", "Check the answer against the 30-day rule."];
const testCase = {
  input: "I bought shoes 40 days ago, can I get my money back?",
  actualOutput: "After 30 days we offer store credit rather than a refund.",
};

/** Answers G-Eval's two steps: evaluation steps, then `{ reason, score }`. */
function gevalJudge(score: number | ((call: MockJudgeCall) => number), name = "mock-judge") {
  return new MockJudge({
    name,
    answers: (call): MockAnswer =>
      call.kind === "steps"
        ? {
            steps: [
              "Read the policy.",
              "Compare the answer with it.",
              call.prompt.includes("receipt")
                ? "Check the receipt is mentioned."
                : "Judge how closely it follows.",
            ],
          }
        : {
            reason: "It offers store credit after 30 days, as the policy says.",
            score: typeof score === "function" ? score(call) : score,
          },
  });
}

describe("GEval", () => {
  it("asks for evaluation steps from the criteria, then a score scaled from 0–10", async () => {
    const judge = gevalJudge(8);
    const metric = new GEval({ name: "Refund policy", criteria: CRITERIA, model: judge });
    expect(await metric.measure(testCase)).toBeCloseTo(0.8, 12);
    expect(metric.name).toBe("Refund policy [GEval]");
    expect(metric.success).toBe(true);
    expect(metric.reason).toBe("It offers store credit after 30 days, as the policy says.");
    expect(judge.calls.map((call) => call.kind)).toEqual(["steps", "reason"]);
    expect(judge.calls[0]?.prompt).toContain(CRITERIA);
    expect(judge.calls[0]?.prompt).toContain("Input and Actual Output");
    const scoring = judge.calls[1]?.prompt ?? "";
    expect(scoring).toContain("1. Read the policy.\n2. Compare the answer with it.");
    expect(scoring).toContain(JSON.stringify(testCase.actualOutput));
    expect(scoring).toContain("whole number from 0 to 10");
    expect(metric.details?.evaluationSteps).toHaveLength(3);
    expect(metric.details?.judgeScore).toEqual({
      score: 8,
      weightedScore: null,
      scoreRange: [0, 10],
    });
  });

  it("uses given evaluation steps without asking for any", async () => {
    const judge = gevalJudge(3);
    const metric = new GEval({ name: "Policy", evaluationSteps: STEPS, model: judge });
    expect(await metric.measure(testCase)).toBeCloseTo(0.3, 12);
    expect(metric.success).toBe(false);
    expect(judge.calls.map((call) => call.kind)).toEqual(["reason"]);
    expect(judge.calls[0]?.prompt).toContain(`1. ${STEPS[0]}\n2. ${STEPS[1]}`);
  });

  it("scores within the rubric's span and shows the rubric", async () => {
    const judge = gevalJudge(6);
    const metric = new GEval({
      name: "Policy",
      evaluationSteps: STEPS,
      model: judge,
      rubric: [
        { scoreRange: [7, 9], expectedOutcome: "Follows the policy." },
        { scoreRange: [0, 2], expectedOutcome: "Contradicts the policy." },
        { scoreRange: [3, 6], expectedOutcome: "Partly follows it." },
      ],
    });
    expect(metric.scoreRange).toEqual([0, 9]);
    expect(await metric.measure(testCase)).toBeCloseTo(6 / 9, 12);
    const prompt = judge.calls[0]?.prompt ?? "";
    expect(prompt).toContain(
      "0-2: Contradicts the policy.\n3-6: Partly follows it.\n7-9: Follows the policy.",
    );
    expect(prompt).toContain("whole number from 0 to 9");
  });

  it("re-asks a score outside the range, then fails rather than scoring it", async () => {
    const judge = gevalJudge(11);
    const metric = new GEval({ name: "Policy", evaluationSteps: STEPS, model: judge });
    await expect(metric.measure(testCase)).rejects.toThrow(JudgeOutputError);
    expect(judge.calls).toHaveLength(2);
    expect(metric.score).toBeNull();
  });

  it("strict mode asks for 0 or 1 with the strict prompt and passes only on 1", async () => {
    const pass = gevalJudge(1);
    const strict = new GEval({
      name: "Policy",
      evaluationSteps: STEPS,
      strictMode: true,
      model: pass,
    });
    expect(strict.threshold).toBe(1);
    expect(await strict.measure(testCase)).toBe(1);
    expect(strict.success).toBe(true);
    expect(pass.calls[0]?.prompt).toContain("no partial credit");
    const fail = new GEval({
      name: "Policy",
      evaluationSteps: STEPS,
      strictMode: true,
      model: gevalJudge(0),
    });
    expect(await fail.measure(testCase)).toBe(0);
    expect(fail.success).toBe(false);
    const notBinary = new GEval({
      name: "Policy",
      evaluationSteps: STEPS,
      strictMode: true,
      model: gevalJudge(7),
    });
    await expect(notBinary.measure(testCase)).rejects.toThrow(JudgeOutputError);
  });

  it("judges the fields it is given, and needs each of them", async () => {
    const judge = gevalJudge(10);
    const metric = new GEval({
      name: "Correctness",
      evaluationSteps: STEPS,
      evaluationParams: ["input", "actualOutput", "expectedOutput", "retrievalContext"],
      model: judge,
    });
    await expect(metric.measure(testCase)).rejects.toThrow(MissingTestCaseParamsError);
    expect(judge.calls).toHaveLength(0);
    await metric.measure({
      ...testCase,
      expectedOutput: "Store credit.",
      retrievalContext: ["Refunds within 30 days."],
    });
    const prompt = judge.calls[0]?.prompt ?? "";
    expect(prompt).toContain("Input, Actual Output, Expected Output, and Retrieval Context");
    expect(prompt).toContain(
      'Retrieval Context:\n<retrieval_context>\n[\n  "Refunds within 30 days."\n]',
    );
  });

  it("lets evaluationTemplate replace a prompt", async () => {
    const judge = gevalJudge(5);
    class ShortTemplate extends GEvalTemplate {
      static override generateEvaluationSteps() {
        return "Write steps for the refund policy.";
      }
    }
    await new GEval({
      name: "P",
      criteria: CRITERIA,
      model: judge,
      evaluationTemplate: ShortTemplate,
    }).measure(testCase);
    expect(judge.calls[0]?.prompt).toBe("Write steps for the refund policy.");
  });

  it.each([
    [{ name: "P" }, "needs `criteria`"],
    [{ name: "P", criteria: "" }, "`criteria` must be a non-empty string"],
    [{ name: "P", evaluationSteps: [] }, "`evaluationSteps` must be a non-empty list"],
    [{ criteria: CRITERIA }, "`name` must be a non-empty string; got nothing"],
    [
      { name: "P", criteria: CRITERIA, evaluationParams: [] },
      "`evaluationParams` must be a non-empty list",
    ],
    [
      { name: "P", criteria: CRITERIA, evaluationParams: ["output"] },
      "`evaluationParams` must be a non-empty list of test-case fields",
    ],
    [
      { name: "P", criteria: CRITERIA, evaluation_params: ["input"] },
      "`evaluation_params`: verdict spells it `evaluationParams`",
    ],
    [{ name: "P", criteria: CRITERIA, treshold: 0.7 }, "`treshold`: did you mean `threshold`?"],
    [
      { name: "P", criteria: CRITERIA, topLogprobs: 50 },
      "`topLogprobs` must be a whole number from 1 to 20",
    ],
    [
      {
        name: "P",
        criteria: CRITERIA,
        rubric: [
          { scoreRange: [0, 5], expectedOutcome: "a" },
          { scoreRange: [5, 10], expectedOutcome: "b" },
        ],
      },
      "overlap",
    ],
    [
      { name: "P", criteria: CRITERIA, rubric: [{ scoreRange: [0, 11], expectedOutcome: "a" }] },
      "`rubric` must be a list",
    ],
    [
      { name: "P", criteria: CRITERIA, rubric: [{ scoreRange: [6, 2], expectedOutcome: "a" }] },
      "runs backwards",
    ],
    [
      { name: "P", criteria: CRITERIA, rubric: [{ scoreRange: [5, 5], expectedOutcome: "a" }] },
      "single score 5",
    ],
  ])("refuses %j before any judge call", (options, message) => {
    let error: unknown;
    try {
      new GEval(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
  });

  it("puts every option into config(), so a changed criterion changes the fingerprint", () => {
    const a = new GEval({ name: "P", criteria: CRITERIA }).config();
    const b = new GEval({ name: "P", criteria: `${CRITERIA} Be strict.` }).config();
    expect(a.criteria).toBe(CRITERIA);
    expect(a).not.toEqual(b);
    expect(a.name).toBe("P [GEval]");
    expect(a).toMatchObject({ evaluationParams: ["input", "actualOutput"], topLogprobs: 20 });
    const rubric = new GEval({
      name: "P",
      criteria: CRITERIA,
      rubric: [{ scoreRange: [0, 10], expectedOutcome: "x" }],
    });
    expect(rubric.config()).not.toEqual(a);
  });
});

describe("GEval in a run", () => {
  const cases = Array.from({ length: 100 }, (_, index) => ({
    name: `case-${index}`,
    input: `Question ${index}: can I return my order?`,
    actualOutput: `Answer ${index}: yes, within 30 days.`,
  }));

  it("asks for the evaluation steps once and scores each of 100 cases once", async () => {
    const judge = gevalJudge(7);
    const metric = new GEval({ name: "Refund policy", criteria: CRITERIA, model: judge });
    const result = await evaluate({
      testCases: cases,
      metrics: [metric],
      cache: false,
      maxConcurrent: 8,
      ...quiet,
    });
    expect(judge.callsOfKind("steps")).toHaveLength(1);
    expect(judge.callsOfKind("reason")).toHaveLength(100);
    expect(result.testResults.every((testResult) => testResult.metricsData[0]?.score === 0.7)).toBe(
      true,
    );
    const paid = result.testResults.map((testResult) => testResult.metricsData[0]?.judgeCalls ?? 0);
    expect(paid.reduce((sum, calls) => sum + calls, 0)).toBe(101);
  });

  it("makes no steps call when the steps are given", async () => {
    const judge = gevalJudge(7);
    const metric = new GEval({ name: "Refund policy", evaluationSteps: STEPS, model: judge });
    await evaluate({ testCases: cases.slice(0, 20), metrics: [metric], cache: false, ...quiet });
    expect(judge.callsOfKind("steps")).toHaveLength(0);
    expect(judge.callsOfKind("reason")).toHaveLength(20);
  });

  it("asks again when the steps call failed, and keeps the steps once it worked", async () => {
    let failures = 2;
    const judge = new MockJudge({
      answers: (call): MockAnswer => {
        if (call.kind === "steps") {
          if (failures-- > 0) return "not json at all";
          return { steps: ["Judge it."] };
        }
        return { reason: "ok", score: 9 };
      },
    });
    const metric = new GEval({ name: "P", criteria: CRITERIA, model: judge });
    await expect(metric.measure(testCase)).rejects.toThrow(JudgeOutputError);
    await metric.measure(testCase);
    await metric.measure(testCase);
    // Two tries for the failed answer (the re-ask included), one that worked, then none.
    expect(judge.callsOfKind("steps")).toHaveLength(3);
  });

  it("resume never reuses a result scored under other criteria; the same criteria are reused", async () => {
    const store = new MemoryRunStore();
    const run = async (criteria: string) => {
      const judge = gevalJudge(6);
      const metric = new GEval({ name: "P", criteria, model: judge });
      await evaluate({
        testCases: cases.slice(0, 5),
        metrics: [metric],
        store,
        identifier: "policy",
        resume: true,
        cache: false,
        ...quiet,
      });
      return judge.callsOfKind("reason").length;
    };
    expect(await run(CRITERIA)).toBe(5);
    expect(await run(CRITERIA)).toBe(0);
    expect(await run(`${CRITERIA} Mention the receipt.`)).toBe(5);
  });

  it("the judge cache never serves an answer given under other criteria", async () => {
    const store = new MemoryRunStore();
    const run = async (criteria: string) => {
      const judge = gevalJudge(6);
      const metric = new GEval({ name: "P", criteria, model: judge });
      await evaluate({ testCases: cases.slice(0, 3), metrics: [metric], store, ...quiet });
      return judge.calls.length;
    };
    expect(await run(CRITERIA)).toBe(4);
    expect(await run(CRITERIA)).toBe(0);
    expect(await run(`${CRITERIA} Mention the receipt.`)).toBe(4);
  });
});

describeCustomMetricContract({
  name: "Refund policy [GEval]",
  create: (options) => new GEval({ name: "Refund policy", criteria: CRITERIA, ...options }),
  testCase,
  answer: (call) =>
    call.kind === "steps"
      ? { steps: ["Compare the answer with the policy."] }
      : { reason: "Follows it.", score: call.prompt.includes("no partial credit") ? 1 : 8 },
  optionVariants: {
    criteria: [`${CRITERIA} Mention the receipt.`],
    evaluationParams: [["input", "actualOutput"], ["actualOutput"]],
    topLogprobs: [5],
    rubric: [[{ scoreRange: [0, 10], expectedOutcome: "Anything." }]],
  },
});
