import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnswerRelevancyMetric } from "./answer-relevancy/answer-relevancy-metric.ts";
import { defineMetric } from "./define-metric.ts";
import { GEval } from "./g-eval/g-eval-metric.ts";
import { exactly } from "./metric-estimate.ts";
import { ToxicityTemplate } from "./toxicity/prompts.ts";
import { ToxicityMetric } from "./toxicity/toxicity-metric.ts";

const stepsOf = (estimate: Array<{ step: string }>) => estimate.map((step) => step.step);

describe("a metric's estimate of one test case", () => {
  it("Toxicity: one opinion call on the real prompt, then verdicts and a reason as likely as opinions are", async () => {
    const metric = new ToxicityMetric();
    const opinionated = "This is the best plan we ever had. Everyone should read it.";
    const factual = "The plan was filed in May. It has twelve pages.";
    const [opinions, verdicts, reason] = await metric.estimate({
      input: "q",
      actualOutput: opinionated,
    });
    expect(opinions).toMatchObject({ step: "generateOpinions", calls: exactly(1) });
    expect(opinions?.inputTokens.expected).toBe(
      Math.ceil(
        ToxicityTemplate.generateOpinions({ actualOutput: opinionated, multimodal: false }).length /
          4,
      ),
    );
    expect(verdicts?.step).toBe("generateVerdicts");
    expect(verdicts?.calls.expected).toBeGreaterThan(0.9);
    expect(reason?.step).toBe("generateReason");
    expect(reason?.calls.expected).toBeGreaterThan(0.1);
    expect(reason?.calls.expected).toBeLessThan(0.3);
    const [, plainVerdicts, plainReason] = await metric.estimate({
      input: "q",
      actualOutput: factual,
    });
    expect(plainVerdicts?.calls.expected).toBeLessThan(0.1);
    expect(plainVerdicts?.calls.high).toBe(1);
    expect(plainReason?.calls.low).toBe(0);
    for (const step of [opinions, verdicts, reason]) {
      expect(step?.inputTokens.low).toBeLessThanOrEqual(step?.inputTokens.expected ?? 0);
      expect(step?.outputTokens.expected).toBeLessThanOrEqual(step?.outputTokens.high ?? 0);
    }
  });

  it("counts the tokens of the metric's own template, overrides included", async () => {
    const testCase = { input: "q", actualOutput: "It is the best plan." };
    const plain = await new ToxicityMetric().estimate(testCase);
    const longer = await new ToxicityMetric({
      evaluationTemplate: {
        generateVerdicts: (args) =>
          `${ToxicityTemplate.generateVerdicts(args)}\n${"Treat sarcasm about work as not toxic. ".repeat(20)}`,
      },
    }).estimate(testCase);
    expect(longer[1]?.inputTokens.expected).toBeGreaterThan(
      (plain[1]?.inputTokens.expected ?? 0) + 150,
    );
    expect(longer[0]).toEqual(plain[0]);
  });

  it("Answer Relevancy: a statement a sentence; off-topic sentences make a reason likelier", async () => {
    const input = "How does photosynthesis work in plants?";
    const onTopic = "Photosynthesis turns light into sugar. Plants need photosynthesis to grow.";
    const offTopic = "The weather was pleasant yesterday. Trains were running late.";
    const metric = new AnswerRelevancyMetric();
    const [statements, verdicts, reason] = await metric.estimate({ input, actualOutput: onTopic });
    expect(stepsOf([statements, verdicts, reason] as Array<{ step: string }>)).toEqual([
      "generateStatements",
      "generateVerdicts",
      "generateReason",
    ]);
    expect(verdicts?.calls.expected).toBe(1);
    const [, , offReason] = await metric.estimate({ input, actualOutput: offTopic });
    expect(offReason?.calls.expected).toBeGreaterThan((reason?.calls.expected ?? 0) * 5);
    const [, , penalised] = await new AnswerRelevancyMetric({ penalizeAmbiguous: true }).estimate({
      input,
      actualOutput: offTopic,
    });
    expect(penalised?.calls.expected).toBeGreaterThan(offReason?.calls.expected ?? 0);
  });

  it("G-Eval: the evaluation steps once per run when written from criteria, then one score a case", async () => {
    const testCase = { input: "Can I return these shoes?", actualOutput: "Yes, within 30 days." };
    const fromCriteria = new GEval({ name: "Refunds", criteria: "Follows the refund policy." });
    expect(await fromCriteria.estimate(testCase)).toMatchObject([
      { step: "generateEvaluationSteps", calls: exactly(1), oncePerRun: true },
      { step: "generateEvaluationResults", calls: exactly(1) },
    ]);
    const given = new GEval({
      name: "Refunds",
      evaluationSteps: ["Check the 30-day rule."],
      strictMode: true,
    });
    expect(stepsOf(await given.estimate(testCase))).toEqual(["generateStrictEvaluationResults"]);
  });

  it("a defined metric: its own estimate when it gives one, else each prompt once a case", async () => {
    const definition = {
      name: "Politeness",
      requiredFields: ["actualOutput" as const],
      prompts: {
        rate: ({ reply }: { reply: string }) => `Rate the politeness of: ${reply}`,
        explain: ({ reply }: { reply: string }) => `Explain: ${reply}`,
      },
      score: async () => ({ score: 1 }),
    };
    const Plain = defineMetric(definition);
    const plain = await new Plain().estimate({ input: "q", actualOutput: "Thanks a lot!" });
    expect(stepsOf(plain)).toEqual(["rate", "explain"]);
    expect(plain[0]?.calls).toEqual(exactly(1));
    expect(plain[1]?.calls.low).toBe(0);
    const Estimated = defineMetric({
      ...definition,
      options: { strict: z.boolean().default(false) },
      estimate: ({ prompts, text, tokens, options }) => [
        {
          step: "rate",
          calls: exactly(options.strict ? 2 : 1),
          inputTokens: exactly(tokens(prompts.rate({ reply: text("actualOutput") }))),
          outputTokens: exactly(20),
        },
      ],
    });
    const own = await new Estimated({ strict: true }).estimate({
      input: "q",
      actualOutput: "Thanks!",
    });
    expect(own).toEqual([
      {
        step: "rate",
        calls: exactly(2),
        inputTokens: exactly(Math.ceil("Rate the politeness of: Thanks!".length / 4)),
        outputTokens: exactly(20),
      },
    ]);
  });

  it("falls back on the plain estimate when a prompt of the user's fails on typical items", async () => {
    const metric = new ToxicityMetric({
      evaluationTemplate: {
        generateVerdicts: () => {
          throw new Error("this template only works on Tuesdays");
        },
      },
    });
    const estimate = await metric.estimate({ input: "q", actualOutput: "It is the best." });
    expect(stepsOf(estimate)).toEqual(["generateOpinions", "generateVerdicts", "generateReason"]);
  });
});
