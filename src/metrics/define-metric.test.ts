import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import { evaluate } from "../evaluate/evaluate.ts";
import { describeCustomMetricContract } from "../testing/metric-contract/custom-metric-contract.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { defineMetric } from "./define-metric.ts";

const rating = z.object({ reason: z.string(), score: z.number().min(0).max(10) });

const Politeness = defineMetric({
  name: "Politeness",
  requiredFields: ["actualOutput"],
  options: { audience: z.enum(["customers", "colleagues"]).default("customers") },
  prompts: {
    rate: ({ reply, audience }: { reply: string; audience: string }) =>
      `Rate how polite this reply to ${audience} is, 0 (rude) to 10 (warm).\n<reply>${reply}</reply>`,
  },
  async score({ ask, text, options }) {
    const answer = await ask(
      "rate",
      { reply: text("actualOutput"), audience: options.audience },
      rating,
    );
    return {
      score: answer.score / 10,
      reason: answer.reason,
      details: { "Judge score": answer.score },
    };
  },
});

const reply = {
  input: "Where is my parcel?",
  actualOutput: "It left our depot this morning, thanks for waiting!",
};

describe("defineMetric", () => {
  it("makes a metric class that scores with its prompts and keeps its details as steps", async () => {
    const judge = new MockJudge({ answers: [{ reason: "Warm and clear.", score: 9 }] });
    const metric = new Politeness({ threshold: 0.7, model: judge });
    expect(await metric.measure(reply)).toBeCloseTo(0.9, 12);
    expect(metric.name).toBe("Politeness");
    expect(metric.constructor.name).toBe("PolitenessMetric");
    expect(metric.success).toBe(true);
    expect(metric.reason).toBe("Warm and clear.");
    expect(metric.details).toEqual({ "Judge score": 9 });
    expect(judge.calls[0]?.prompt).toContain("polite this reply to customers");
    expect(judge.calls[0]?.prompt).toContain(reply.actualOutput);
  });

  it("checks its own options and the base ones", () => {
    expect(() => new Politeness({ audience: "robots" } as never)).toThrow(
      /`audience` is not valid.*got the string "robots"/,
    );
    expect(() => new Politeness({ audiance: "customers" } as never)).toThrow(
      /`audiance`: did you mean `audience`\?/,
    );
    expect(() => new Politeness({ treshold: 0.2 } as never)).toThrow(ConfigError);
  });

  it("puts every option and its own source into the fingerprint", () => {
    const a = new Politeness().config();
    expect(a.audience).toBe("customers");
    expect(new Politeness({ audience: "colleagues" }).config()).not.toEqual(a);
    const Changed = defineMetric({
      name: "Politeness",
      requiredFields: ["actualOutput"],
      options: { audience: z.enum(["customers", "colleagues"]).default("customers") },
      prompts: { rate: ({ reply }: { reply: string }) => `Is this polite? ${reply}` },
      async score({ ask, text }) {
        const answer = await ask("rate", { reply: text("actualOutput") }, rating);
        return { score: answer.score / 10 };
      },
    });
    expect(new Changed().config()).not.toEqual(a);
  });

  it("lets a user override a prompt with evaluationTemplate, and refuses a misspelled one", async () => {
    const judge = new MockJudge({ answers: [{ reason: "ok", score: 5 }] });
    await new Politeness({
      model: judge,
      evaluationTemplate: { rate: ({ reply: text }: { reply: string }) => `Polite? ${text}` },
    }).measure(reply);
    expect(judge.calls[0]?.prompt).toBe(`Polite? ${reply.actualOutput}`);
    expect(
      () => new Politeness({ evaluationTemplate: { generateRate: () => "x" } as never }),
    ).toThrow(/no step of it/);
  });

  it("refuses a score outside 0–1, saying how to scale it", async () => {
    const Unscaled = defineMetric({
      name: "Unscaled",
      requiredFields: ["actualOutput"],
      prompts: { rate: () => "Rate it 0–10." },
      async score({ ask }) {
        return { score: (await ask("rate", undefined, rating)).score };
      },
    });
    const metric = new Unscaled({ model: new MockJudge({ answers: [{ reason: "x", score: 7 }] }) });
    await expect(metric.measure(reply)).rejects.toThrow(/scored 7, but scores run from 0 to 1/);
  });

  it("needs its required fields before any judge call", async () => {
    const judge = new MockJudge({ answers: [] });
    await expect(new Politeness({ model: judge }).measure({ input: "hi" })).rejects.toThrow(
      /actualOutput/,
    );
    expect(judge.calls).toHaveLength(0);
  });

  it("runs in evaluate() like a built-in metric: lower-is-better, strict mode, summaries", async () => {
    const Rudeness = defineMetric({
      name: "Rudeness",
      requiredFields: ["actualOutput"],
      lowerIsBetter: true,
      prompts: { rate: ({ reply: text }: { reply: string }) => `How rude is this? ${text}` },
      async score({ ask, text }) {
        const answer = await ask("rate", { reply: text("actualOutput") }, rating);
        return { score: answer.score / 10, reason: answer.reason };
      },
    });
    const judge = new MockJudge({
      answers: (call) => ({ reason: "r", score: call.prompt.includes("idiot") ? 8 : 0 }),
    });
    const result = await evaluate({
      testCases: [reply, { input: "?", actualOutput: "Only an idiot asks that." }],
      metrics: [new Rudeness({ model: judge, strictMode: true })],
      display: "none",
      handleInterrupt: false,
      cache: false,
    });
    const [kind, rude] = result.testResults.map((testResult) => testResult.metricsData[0]);
    expect(kind).toMatchObject({ name: "Rudeness", score: 0, success: true, lowerIsBetter: true });
    expect(rude).toMatchObject({ score: 1, success: false, threshold: 0 });
  });
});

describeCustomMetricContract({
  name: "Politeness",
  create: (options) => new Politeness(options),
  testCase: reply,
  answer: () => ({ reason: "Warm and clear.", score: 9 }),
  optionVariants: { audience: ["customers", "colleagues"] },
});
