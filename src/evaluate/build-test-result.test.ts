import { describe, expect, it } from "vitest";
import type { JudgeModel } from "../judge/judge-model.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { LLMTestCase } from "../test-case/llm-test-case.ts";
import { fingerprintTestCase } from "./build-test-result.ts";

const judge = (name: string): JudgeModel => ({ name, generate: async () => "{}" });

describe("fingerprintTestCase", () => {
  it("changes when the judge a metric resolved to changes (e.g. another VERDICT_MODEL)", () => {
    const testCase = new LLMTestCase({ input: "q", actualOutput: "a" });
    const metric = new ToxicityMetric();
    const with41 = fingerprintTestCase({
      testCase,
      metrics: [metric],
      judges: new Map([[metric, judge("openai:gpt-4.1")]]),
      repeat: 1,
    });
    const withMini = fingerprintTestCase({
      testCase,
      metrics: [metric],
      judges: new Map([[metric, judge("openai:gpt-4.1-mini")]]),
      repeat: 1,
    });
    expect(with41).not.toBe(withMini);
    expect(with41).toBe(
      fingerprintTestCase({
        testCase,
        metrics: [metric],
        judges: new Map([[metric, judge("openai:gpt-4.1")]]),
        repeat: 1,
      }),
    );
  });

  it("changes with the test case, the metric options and the number of trials", () => {
    const metric = new ToxicityMetric();
    const judges = new Map([[metric, judge("j")]]);
    const base = {
      testCase: new LLMTestCase({ input: "q", actualOutput: "a" }),
      metrics: [metric],
      judges,
      repeat: 1,
    };
    const strict = new ToxicityMetric({ strictMode: true });
    const prints = [
      fingerprintTestCase(base),
      fingerprintTestCase({
        ...base,
        testCase: new LLMTestCase({ input: "q", actualOutput: "b" }),
      }),
      fingerprintTestCase({ ...base, metrics: [strict], judges: new Map([[strict, judge("j")]]) }),
      fingerprintTestCase({ ...base, repeat: 2 }),
    ];
    expect(new Set(prints).size).toBe(prints.length);
  });
});
