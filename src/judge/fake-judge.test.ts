import { describe, expect, it } from "vitest";
import { AnswerRelevancyMetric } from "../metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../metrics/bias/bias-metric.ts";
import { ContextualPrecisionMetric } from "../metrics/contextual-precision/contextual-precision-metric.ts";
import { ContextualRecallMetric } from "../metrics/contextual-recall/contextual-recall-metric.ts";
import { ContextualRelevancyMetric } from "../metrics/contextual-relevancy/contextual-relevancy-metric.ts";
import { HallucinationMetric } from "../metrics/hallucination/hallucination-metric.ts";
import { opinionsSchema } from "../metrics/shared/opinions.ts";
import { verdictsSchema } from "../metrics/shared/verdicts.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { createFakeJudge } from "./fake-judge.ts";
import { resolveJudge, resolveModelSpec } from "./resolve-model.ts";
import { toStrictJsonSchema } from "./strict-json-schema.ts";

const testCase = {
  name: "refund",
  input: "What if these shoes don't fit?",
  actualOutput: "We offer a 30-day full refund at no extra cost.",
  expectedOutput: "You are eligible for a 30 day full refund at no extra cost.",
  context: ["All customers are eligible for a 30 day full refund at no extra cost."],
  retrievalContext: ["All customers are eligible for a 30 day full refund at no extra cost."],
};

describe("the fake judge", () => {
  it.each([
    ["the model option", { model: "fake", env: {} }],
    ["VERDICT_MODEL", { env: { VERDICT_MODEL: "fake" } }],
    ["any spelling", { env: { VERDICT_MODEL: " Fake " } }],
  ])("is what %s names, with no key in the environment", async (_label, options) => {
    const judge = await resolveJudge({ ...options, cwd: "/nonexistent" });
    expect(judge.name).toBe("fake");
  });

  it("is not what a model merely containing the word resolves to", async () => {
    await expect(resolveJudge({ model: "fake-model", env: {} })).rejects.toThrow(
      /needs OPENAI_API_KEY.*VERDICT_MODEL=fake/s,
    );
    expect(resolveModelSpec({ env: { VERDICT_MODEL: "fake" } })).toEqual({
      model: "fake",
      source: "env",
    });
  });

  it("lets every built-in metric pass with its defaults, at no cost, naming itself", async () => {
    for (const metric of [
      new ToxicityMetric({ model: "fake" }),
      new BiasMetric({ model: "fake" }),
      new AnswerRelevancyMetric({ model: "fake" }),
    ]) {
      await metric.measure(testCase, { env: {} });
      expect(metric.error).toBeNull();
      expect(metric.success).toBe(true);
      expect(metric.score).toBe(metric.lowerIsBetter ? 0 : 1);
      expect(metric.evaluationModel).toBe("fake");
      expect(metric.evaluationCost).toBe(0);
      // Extraction and verdicts both ran: the run shows the whole flow.
      expect(metric.judgeCalls).toBe(2);
      expect(metric.verboseLogs).toMatch(/Verdicts:/);
    }
  });

  it("lets the RAG metrics pass too: their clean verdict is yes (relevant, useful, agrees)", async () => {
    for (const metric of [
      new ContextualRelevancyMetric({ model: "fake" }),
      new ContextualPrecisionMetric({ model: "fake" }),
      new ContextualRecallMetric({ model: "fake" }),
      new HallucinationMetric({ model: "fake" }),
    ]) {
      await metric.measure(testCase, { env: {} });
      expect(metric.error).toBeNull();
      expect(metric.success).toBe(true);
      expect(metric.score).toBe(metric.lowerIsBetter ? 0 : 1);
      // The verdict step ran; nothing to explain, so verdict wrote the reason.
      expect(metric.judgeCalls).toBe(1);
    }
  });

  it("answers the same prompt the same way, within the step's schema", async () => {
    const judge = createFakeJudge();
    const schema = verdictsSchema({ allowed: ["yes", "no"], count: 3, itemName: "opinion" });
    const request = { prompt: "Judge these.", schema, jsonSchema: toStrictJsonSchema(schema) };
    const first = await judge.generate(request);
    expect(await judge.generate(request)).toEqual(first);
    expect(schema.parse((first as { object: unknown }).object).verdicts).toEqual([
      { verdict: "no", reason: expect.any(String) },
      { verdict: "no", reason: expect.any(String) },
      { verdict: "no", reason: expect.any(String) },
    ]);
    const opinions = await judge.generate({
      prompt: "Extract.",
      schema: opinionsSchema,
      jsonSchema: toStrictJsonSchema(opinionsSchema),
    });
    expect(opinionsSchema.parse((opinions as { object: unknown }).object).opinions).toHaveLength(1);
  });
});
