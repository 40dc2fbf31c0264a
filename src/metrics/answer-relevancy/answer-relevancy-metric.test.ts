import { describe, expect, it } from "vitest";
import { PNG_BYTES } from "../../../test/fixtures/images.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { image, mm } from "../../test-case/image.ts";
import { describeMetricContract } from "../../testing/metric-contract.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import { AnswerRelevancyMetric } from "./answer-relevancy-metric.ts";
import { AnswerRelevancyTemplate } from "./prompts.ts";

const shoes = {
  name: "shoes",
  input: "What if these shoes don't fit?",
  actualOutput: "We offer a 30-day full refund at no extra cost. Our shoes are made in Portugal.",
};
const PNG = PNG_BYTES;

describeMetricContract({
  name: "Answer Relevancy",
  create: (options) => new AnswerRelevancyMetric(options),
  templateClass: AnswerRelevancyTemplate,
  testCase: shoes,
  steps: {
    extract: { step: "generateStatements", key: "statements" },
    verdicts: { step: "generateVerdicts", itemName: "statement" },
    reason: { step: "generateReason", flaggedArg: "irrelevantStatements" },
  },
  lowerIsBetter: false,
  expectedScore: (verdicts) =>
    verdicts.length === 0
      ? 1
      : verdicts.filter((verdict) => verdict !== "no").length / verdicts.length,
  isFlagged: (verdict) => verdict === "no",
  mixedVerdicts: ["yes", "no", "idk", "yes"],
  nothingExtractedReason:
    "The score is 1.00 because the output makes no statements, so none of it is irrelevant.",
});

describe("AnswerRelevancyMetric", () => {
  it("scores relevant statements over all and explains the irrelevant ones", async () => {
    const judge = new MockJudge({
      answers: [
        {
          // The refund and its terms are one claim, so its sentence stays one statement.
          statements: [
            "We offer a 30-day full refund at no extra cost.",
            "Our shoes are made in Portugal.",
          ],
        },
        {
          verdicts: [
            { verdict: "yes", reason: null },
            { verdict: "no", reason: "Where shoes are made does not address fit." },
          ],
        },
        { reason: "The score is 0.50 because one statement is about manufacturing, not fit." },
      ],
    });
    const metric = new AnswerRelevancyMetric({ model: judge, threshold: 0.7 });
    expect(await metric.measure(shoes)).toBe(0.5);
    expect(metric.success).toBe(false);
    expect(metric.reason).toBe(
      "The score is 0.50 because one statement is about manufacturing, not fit.",
    );
    expect(judge.calls[1]?.prompt).toContain(JSON.stringify(shoes.input));
    expect(judge.calls[2]?.prompt).toContain("Where shoes are made does not address fit.");
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("scores an output that is only an emoji, extracted as itself", async () => {
    const judge = new MockJudge({
      answers: [
        { statements: ["👍"] },
        {
          verdicts: [
            { verdict: "no", reason: "A thumbs-up does not say whether the order shipped." },
          ],
        },
        { reason: "The score is 0.00 because a thumbs-up does not answer the question." },
      ],
    });
    const metric = new AnswerRelevancyMetric({ model: judge });
    expect(await metric.measure({ input: "Has my order shipped?", actualOutput: "👍" })).toBe(0);
    expect(metric.error).toBeNull();
    expect(metric.statements).toEqual(["👍"]);
    expect(judge.calls).toHaveLength(3);
  });

  it("counts idk as relevant by default and as irrelevant with penalizeAmbiguous", async () => {
    const script = () => [
      { statements: ["A", "B"] },
      { verdicts: [{ verdict: "yes" }, { verdict: "idk", reason: "Only related." }] },
    ];
    const lenient = new AnswerRelevancyMetric({ model: new MockJudge({ answers: script() }) });
    expect(await lenient.measure(shoes)).toBe(1);
    expect(lenient.reason).toBe(
      "The score is 1.00 because none of the 2 statements in the output is irrelevant to the input (1 ambiguous, counted as relevant).",
    );

    const strictJudge = new MockJudge({
      answers: [...script(), { reason: "The score is 0.50 because B is only related." }],
    });
    const penalized = new AnswerRelevancyMetric({ model: strictJudge, penalizeAmbiguous: true });
    expect(await penalized.measure(shoes)).toBe(0.5);
    expect(strictJudge.calls[2]?.prompt).toContain("Only related.");
  });

  it("writes the reason itself when every statement is relevant", async () => {
    const one = new AnswerRelevancyMetric({
      model: new MockJudge({ answers: [{ statements: ["A"] }, { verdicts: ["yes"] }] }),
    });
    await one.measure(shoes);
    expect(one.reason).toBe(
      "The score is 1.00 because the one statement in the output is relevant to the input.",
    );
    const judge = new MockJudge({
      answers: [{ statements: ["A", "B"] }, { verdicts: ["yes", "yes"] }],
    });
    const two = new AnswerRelevancyMetric({ model: judge });
    await two.measure(shoes);
    expect(two.reason).toBe(
      "The score is 1.00 because all 2 statements in the output are relevant to the input.",
    );
    expect(judge.calls).toHaveLength(2);
  });

  it("explains an irrelevant verdict given without a reason by quoting its statement", async () => {
    const judge = new MockJudge({
      answers: [
        { statements: ["A", "Made in Portugal."] },
        { verdicts: ["yes", "no"] },
        { reason: "The score is 0.50 because of Portugal." },
      ],
    });
    await new AnswerRelevancyMetric({ model: judge }).measure(shoes);
    expect(judge.calls[2]?.prompt).toContain(JSON.stringify('"Made in Portugal." (no)'));
    expect(judge.calls[2]?.prompt).toContain(JSON.stringify(shoes.input));
  });

  it("sends the input's image with the verdict prompt, numbered in the text", async () => {
    const judge = new MockJudge({
      answers: [{ statements: ["It is the Eiffel Tower."] }, { verdicts: [{ verdict: "yes" }] }],
    });
    const picture = image(PNG);
    const metric = new AnswerRelevancyMetric({ model: judge });
    await metric.measure({
      input: mm`Tell me about this landmark in France: ${picture}`,
      actualOutput: "This appears to be the Eiffel Tower.",
    });
    expect(judge.calls[0]?.images).toEqual([]);
    expect(judge.calls[1]?.images).toEqual([picture]);
    expect(judge.calls[1]?.prompt).toContain("Tell me about this landmark in France: [image 1]");
    expect(judge.calls[1]?.prompt).toContain("[image N]");
  });

  it("refuses images before any call when the judge cannot see them", async () => {
    const judge = new MockJudge({ supportsImages: false });
    const error = await new AnswerRelevancyMetric({ model: judge })
      .measure({ name: "landmark", input: ["What is this?", image(PNG)], actualOutput: "A tower." })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('Judge "mock-judge" cannot take images');
    expect((error as Error).message).toContain("use a judge that supports images");
    expect(judge.calls).toHaveLength(0);
  });

  it("refuses a missing image file before any call", async () => {
    const judge = new MockJudge();
    const error = await new AnswerRelevancyMetric({ model: judge })
      .measure({
        input: mm`What is ${image("/nonexistent/eiffel.jpg")}?`,
        actualOutput: "A tower.",
      })
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toContain(
      'Image file "/nonexistent/eiffel.jpg" does not exist (ENOENT)',
    );
    expect(judge.calls).toHaveLength(0);
  });
});
