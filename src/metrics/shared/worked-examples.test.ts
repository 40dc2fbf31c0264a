// Every extraction and verdict prompt carries a worked example (input → expected JSON), and
// that JSON must be exactly what the step's own schema accepts (SPEC §3): a worked example in
// the wrong shape teaches the judge to answer in the wrong shape.
import { describe, expect, it } from "vitest";
import { workedExample } from "../../../test/fixtures/worked-example.ts";
import { statementsSchema } from "../answer-relevancy/answer-relevancy-metric.ts";
import { AnswerRelevancyTemplate } from "../answer-relevancy/prompts.ts";
import { BiasTemplate } from "../bias/prompts.ts";
import { ContextualPrecisionTemplate } from "../contextual-precision/prompts.ts";
import { ContextualRecallTemplate } from "../contextual-recall/prompts.ts";
import { nodeVerdictsSchema } from "../contextual-relevancy/contextual-relevancy-metric.ts";
import { ContextualRelevancyTemplate } from "../contextual-relevancy/prompts.ts";
import { FaithfulnessTemplate } from "../faithfulness/prompts.ts";
import { HallucinationTemplate } from "../hallucination/prompts.ts";
import { answersSchema, questionsSchema } from "../summarization/coverage.ts";
import { SummarizationTemplate } from "../summarization/prompts.ts";
import { ToxicityTemplate } from "../toxicity/prompts.ts";
import { opinionsSchema } from "./opinions.ts";
import { CLAIM_VERDICTS, claimsSchema, truthsSchema } from "./truths-and-claims.ts";
import { verdictsSchema } from "./verdicts.ts";

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

  it("the statement prompt splits a sentence joining two separate claims, as deepeval's example does", () => {
    // deepeval's worked example: four sentences, five statements, the last sentence (two
    // separate offers) split in two (answer_relevancy/templates/generate_statements.txt:5,10-16).
    const prompt = AnswerRelevancyTemplate.generateStatements({ ...data, actualOutput: "X" });
    const { items: text, answer } = workedExample(prompt, "Text");
    const { statements } = statementsSchema.parse(answer);
    const sentences = String(text).split(/(?<=[.!?])\s+/);
    expect(sentences).toHaveLength(4);
    expect(statements).toHaveLength(5);
    // The last sentence joins two offers with "and": each becomes a statement of its own.
    const last = sentences[3] as string;
    expect(last).toMatch(/ and /);
    expect(statements.slice(3).every((statement) => !statement.includes(" and "))).toBe(true);
    // The sentence naming the parts of one feature stays one statement, "and" included.
    expect(statements[2]).toMatch(/ and /);
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

  it("the Toxicity example pairs scorn for a place (yes) with a personal preference (no), as deepeval's does", () => {
    const { items, answer } = workedExample(opinionPrompts.Toxicity, "Opinions");
    const { verdicts } = answer as { verdicts: Array<{ verdict: string }> };
    const byOpinion = new Map(
      (items as string[]).map((text, index) => [text, verdicts[index]?.verdict]),
    );
    const scorn = [...byOpinion.keys()].find((text) => /clueless/.test(text)) as string;
    const preference = [...byOpinion.keys()].find((text) => /I prefer/.test(text)) as string;
    expect([byOpinion.get(scorn), byOpinion.get(preference)]).toEqual(["yes", "no"]);
  });

  it("the Bias example flags a hedged one-sided stance and an age stereotype, not a balanced view or a refusal", () => {
    const { items, answer } = workedExample(opinionPrompts.Bias, "Opinions");
    const { verdicts } = answer as { verdicts: Array<{ verdict: string }> };
    const verdictOf = (pattern: RegExp) =>
      verdicts[(items as string[]).findIndex((text) => pattern.test(text))]?.verdict;
    expect(verdictOf(/^In my view/)).toBe("yes");
    expect(verdictOf(/both sides/)).toBe("no");
    expect(verdictOf(/Older employees/)).toBe("yes");
    expect(verdictOf(/rather not judge/)).toBe("no");
  });

  it("the opinion example keeps an endorsed citation, a judging question and a refusal, and drops a reported view and facts", () => {
    const prompt = ToxicityTemplate.generateOpinions({ ...data, actualOutput: "X" });
    const { answer } = workedExample(prompt, "Text");
    const { opinions } = opinionsSchema.parse(answer);
    expect(opinions.some((opinion) => opinion.startsWith("I think"))).toBe(true);
    expect(opinions.some((opinion) => /rightly says/.test(opinion))).toBe(true);
    expect(opinions.some((opinion) => opinion.endsWith("?"))).toBe(true);
    expect(opinions.some((opinion) => /^I can't say/.test(opinion))).toBe(true);
    expect(opinions.some((opinion) => /mayor|2021|books/.test(opinion))).toBe(false);
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

describe("worked examples of the truth, claim, verdict, question and answer prompts", () => {
  it("the truth prompt shows one fact per sentence part, self-contained", () => {
    const prompt = FaithfulnessTemplate.generateTruths({
      documents: ["X"],
      extractionLimit: null,
      multimodal: false,
    });
    const { items: given, answer } = workedExample(prompt, "Documents");
    expect(given).toHaveLength(1);
    const { truths } = truthsSchema.parse(answer);
    expect(truths.length).toBeGreaterThan(2);
    for (const truth of truths) expect(truth).toMatch(/^The Rhine|Rhine\.$/);
  });

  it("the claim prompt keeps hedges and leaves out greetings", () => {
    const prompt = FaithfulnessTemplate.generateClaims({ actualOutput: "X", multimodal: false });
    const { items: given, answer } = workedExample(prompt, "Text");
    const { claims } = claimsSchema.parse(answer);
    expect(claims).toContain("The Rhine may be the busiest river in Europe.");
    expect(String(given)).toMatch(/^Sure!/);
    expect(claims.some((claim) => /Sure|hope/.test(claim))).toBe(false);
  });

  it("the verdict prompt shows yes, no and idk, one per claim, reasons only for no and idk", () => {
    const prompt = FaithfulnessTemplate.generateVerdicts({
      claims: ["X"],
      truths: ["Y"],
      multimodal: false,
    });
    const { items: given, answer } = workedExample(prompt, "Claims");
    const schema = verdictsSchema({
      allowed: CLAIM_VERDICTS,
      count: (given as string[]).length,
      itemName: "claim",
    });
    const { verdicts } = schema.parse(answer);
    expect(verdicts.map((verdict) => verdict.verdict)).toEqual(["yes", "no", "idk", "idk"]);
    expect(verdicts.map((verdict) => verdict.reason === null)).toEqual([true, false, false, false]);
  });

  it("the question prompt shows closed questions, and the answer prompt one answer per question", () => {
    const questions = SummarizationTemplate.generateQuestions({
      text: "X",
      n: 3,
      multimodal: false,
    });
    expect(
      questionsSchema(3).parse(workedExample(questions, "Text").answer).questions,
    ).toHaveLength(3);
    const answers = SummarizationTemplate.generateAnswers({
      questions: ["Q?"],
      text: "X",
      multimodal: false,
    });
    const { items: text } = workedExample(answers, "Text");
    const asked = workedExample(answers, "Questions").items as string[];
    const parsed = answersSchema(asked.length).parse(workedExample(answers, "Questions").answer);
    expect(parsed.answers).toEqual(["yes", "yes", "no"]);
    expect(String(text)).toContain("7am");
  });
});
