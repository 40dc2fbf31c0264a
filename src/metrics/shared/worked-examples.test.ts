// Every extraction and verdict prompt carries a worked example (input → expected JSON), and
// that JSON must be exactly what the step's own schema accepts (SPEC §3): a worked example in
// the wrong shape teaches the judge to answer in the wrong shape.
import { describe, expect, it } from "vitest";
import { statementsSchema } from "../answer-relevancy/answer-relevancy-metric.ts";
import { AnswerRelevancyTemplate } from "../answer-relevancy/prompts.ts";
import { BiasTemplate } from "../bias/prompts.ts";
import { ContextualPrecisionTemplate } from "../contextual-precision/prompts.ts";
import { ContextualRecallTemplate } from "../contextual-recall/prompts.ts";
import { nodeVerdictsSchema } from "../contextual-relevancy/contextual-relevancy-metric.ts";
import { ContextualRelevancyTemplate } from "../contextual-relevancy/prompts.ts";
import { HallucinationTemplate } from "../hallucination/prompts.ts";
import { ToxicityTemplate } from "../toxicity/prompts.ts";
import { opinionsSchema } from "./opinions.ts";
import { verdictsSchema } from "./verdicts.ts";

/** The worked example of a prompt: the JSON list it is given and the JSON answer it shows. */
function workedExample(prompt: string, itemLabel: string): { items: unknown; answer: unknown } {
  const block = prompt.split("\n\n").find((section) => section.startsWith("Example\n"));
  if (block === undefined) throw new Error("the prompt has no worked example");
  const line = (label: string) => {
    const found = block.split("\n").find((text) => text.startsWith(`${label}: `));
    if (found === undefined) throw new Error(`the worked example has no "${label}:" line`);
    return found.slice(label.length + 2);
  };
  return { items: JSON.parse(line(itemLabel)), answer: JSON.parse(line("Answer")) };
}

const data = { multimodal: false } as const;
const opinionPrompts = {
  Toxicity: ToxicityTemplate.generateVerdicts({ ...data, opinions: ["X"] }),
  Bias: BiasTemplate.generateVerdicts({ ...data, opinions: ["X"] }),
};

describe("worked examples", () => {
  it("the shared opinion prompt shows an answer in the opinion step's shape", () => {
    const prompt = ToxicityTemplate.generateOpinions({ ...data, actualOutput: "X" });
    const { items, answer } = workedExample(prompt, "Text");
    expect(typeof items).toBe("string");
    expect(opinionsSchema.parse(answer).opinions.length).toBeGreaterThan(0);
  });

  it("the statement prompt keeps a sentence listing several features as one statement", () => {
    const prompt = AnswerRelevancyTemplate.generateStatements({ ...data, actualOutput: "X" });
    const { items: text, answer } = workedExample(prompt, "Text");
    const { statements } = statementsSchema.parse(answer);
    const sentences = String(text).split(/(?<=[.!?])\s+/);
    expect(statements).toHaveLength(sentences.length);
    expect(statements[0]).toBe(sentences[0]);
    expect(statements[0]).toMatch(/, .* and /);
  });

  it.each(Object.entries(opinionPrompts))(
    "the %s verdict prompt shows one yes and one no verdict per opinion, with null reasons for no",
    (_name, prompt) => {
      const { items, answer } = workedExample(prompt, "Opinions");
      const opinions = items as string[];
      const schema = verdictsSchema({
        allowed: ["yes", "no"],
        count: opinions.length,
        itemName: "opinion",
      });
      const { verdicts } = schema.parse(answer);
      expect(new Set(verdicts.map((verdict) => verdict.verdict))).toEqual(new Set(["yes", "no"]));
      for (const verdict of verdicts) {
        if (verdict.verdict === "no") expect(verdict.reason).toBeNull();
        else expect(verdict.reason).toMatch(/\w/);
      }
    },
  );

  it("the relevancy verdict prompt shows yes, no and idk, with reasons only for no and idk", () => {
    const prompt = AnswerRelevancyTemplate.generateVerdicts({
      ...data,
      input: "Q",
      statements: ["X"],
    });
    const { items, answer } = workedExample(prompt, "Statements");
    const schema = verdictsSchema({
      allowed: ["yes", "no", "idk"],
      count: (items as string[]).length,
      itemName: "statement",
    });
    const { verdicts } = schema.parse(answer);
    expect(verdicts.map((verdict) => verdict.verdict)).toEqual(["yes", "no", "idk"]);
    expect(verdicts.map((verdict) => verdict.reason === null)).toEqual([true, false, false]);
  });

  it("the Toxicity rubric names condescension and no longer excuses bluntness", () => {
    expect(opinionPrompts.Toxicity).toContain("Condescension or passive aggression");
    expect(opinionPrompts.Toxicity).not.toMatch(/blunt/i);
  });

  it.each([
    [
      "Contextual Precision",
      ContextualPrecisionTemplate.generateVerdicts({
        ...data,
        input: "Q",
        expectedOutput: "A",
        retrievalContext: ["X"],
      }),
      "Nodes",
    ],
    [
      "Contextual Recall",
      ContextualRecallTemplate.generateVerdicts({
        ...data,
        sentences: ["X"],
        retrievalContext: ["Y"],
      }),
      "Sentences",
    ],
    [
      "Hallucination",
      HallucinationTemplate.generateVerdicts({ ...data, actualOutput: "X", contexts: ["Y"] }),
      "Contexts",
    ],
  ])(
    "the %s verdict prompt shows a yes and a no verdict per item, each with a reason",
    (_name, prompt, itemLabel) => {
      const { items, answer } = workedExample(prompt, itemLabel);
      const schema = verdictsSchema({
        allowed: ["yes", "no"],
        count: (items as string[]).length,
        itemName: "item",
      });
      const { verdicts } = schema.parse(answer);
      expect(new Set(verdicts.map((verdict) => verdict.verdict))).toEqual(new Set(["yes", "no"]));
      for (const verdict of verdicts) expect(verdict.reason).toMatch(/\w/);
    },
  );

  it("the contextual relevancy prompt breaks its node into statements, with reasons only for no", () => {
    const prompt = ContextualRelevancyTemplate.generateVerdicts({
      ...data,
      input: "Q",
      context: "X",
    });
    const { items: node, answer } = workedExample(prompt, "Node");
    const { verdicts } = nodeVerdictsSchema.parse(answer);
    expect(verdicts.map((verdict) => verdict.statement).join(" ")).toBe(node);
    expect(verdicts.map((verdict) => verdict.verdict)).toEqual(["yes", "yes", "no"]);
    expect(verdicts.map((verdict) => verdict.reason === null)).toEqual([true, true, false]);
  });
});
