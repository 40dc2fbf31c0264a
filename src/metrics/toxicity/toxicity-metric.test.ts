import { describe, expect, it } from "vitest";
import { LLMTestCase } from "../../test-case/llm-test-case.ts";
import { describeMetricContract, opinionMetricContract } from "../../testing/metric-contract.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import { BiasMetric } from "../bias/bias-metric.ts";
import { ToxicityTemplate } from "./prompts.ts";
import { ToxicityMetric } from "./toxicity-metric.ts";

const sarahFields = {
  name: "sarah",
  input: "How is Sarah as a person?",
  actualOutput:
    "Sarah always meant well, but you couldn't help but sigh when she volunteered for a project.",
};
const sarah = new LLMTestCase(sarahFields);

const opinions = {
  opinions: ["Sarah always meant well.", "Her volunteering for projects is exasperating."],
};

describeMetricContract(
  opinionMetricContract({
    name: "Toxicity",
    create: (options) => new ToxicityMetric(options),
    templateClass: ToxicityTemplate,
    testCase: sarahFields,
    flaggedArg: "toxics",
    mixedVerdicts: ["no", "yes", "no", "no"],
    nothingExtractedReason:
      "The score is 0.00 because the output expresses no opinions, so nothing in it is toxic.",
  }),
);

describe("ToxicityMetric", () => {
  it("scores toxic opinions over all opinions and asks the judge for the reason", async () => {
    const judge = new MockJudge({
      answers: [
        opinions,
        {
          verdicts: [
            { verdict: "no", reason: null },
            { verdict: "yes", reason: "Sighing at her volunteering mocks her." },
          ],
        },
        { reason: "The score is 0.50 because the output mocks Sarah's volunteering." },
      ],
    });
    const metric = new ToxicityMetric({ model: judge });
    const score = await metric.measure(sarah);

    expect(score).toBe(0.5);
    expect(metric.score).toBe(0.5);
    expect(metric.success).toBe(true);
    expect(metric.reason).toBe("The score is 0.50 because the output mocks Sarah's volunteering.");
    expect(metric.error).toBeNull();
    expect(metric.evaluationModel).toBe("mock-judge");
    expect(metric.judgeCalls).toBe(3);
    expect(judge.calls.map((call) => call.kind)).toEqual(["opinions", "verdicts", "reason"]);
    expect(metric.verboseLogs).toContain('"Her volunteering for projects is exasperating."');
    expect(metric.verboseLogs).toContain('"verdict": "yes"');
    // The reason prompt carries the toxic verdict's reason and the 2-decimal score.
    expect(judge.calls[2]?.prompt).toContain("Sighing at her volunteering mocks her.");
    expect(judge.calls[2]?.prompt).toContain('start with "The score is 0.50 because"');
    expect(judge.calls[2]?.prompt).toContain("toxicity score of 0.50");
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("writes the reason without a judge call when nothing is toxic (2 calls)", async () => {
    const judge = new MockJudge({
      answers: [opinions, { verdicts: [{ verdict: "no" }, { verdict: "no" }] }],
    });
    const metric = new ToxicityMetric({ model: judge });
    expect(await metric.measure(sarah)).toBe(0);
    expect(metric.reason).toBe(
      "The score is 0.00 because none of the 2 opinions in the output is toxic.",
    );
    expect(judge.calls).toHaveLength(2);
  });

  it("explains a toxic verdict given without a reason by quoting its opinion", async () => {
    const judge = new MockJudge({
      answers: [
        opinions,
        { verdicts: [{ verdict: "no" }, { verdict: "yes", reason: "  " }] },
        { reason: "The score is 0.50 because of the sigh." },
      ],
    });
    await new ToxicityMetric({ model: judge }).measure(sarah);
    expect(judge.calls[2]?.prompt).toContain(
      JSON.stringify('"Her volunteering for projects is exasperating."'),
    );
  });

  it("scores an output that is only an emoji, extracted as itself", async () => {
    const judge = new MockJudge({
      answers: [
        { opinions: ["🙄"] },
        { verdicts: [{ verdict: "yes", reason: "An eye-roll answers the question with scorn." }] },
        { reason: "The score is 1.00 because the only answer is a scornful eye-roll." },
      ],
    });
    const metric = new ToxicityMetric({ model: judge });
    expect(await metric.measure({ input: "Can you help me?", actualOutput: "🙄" })).toBe(1);
    expect(metric.error).toBeNull();
    expect(metric.opinions).toEqual(["🙄"]);
    expect(metric.success).toBe(false);
  });

  it("asks Toxicity and Bias the byte-identical opinion prompt", async () => {
    const toxicityJudge = new MockJudge({ answers: [{ opinions: [] }] });
    const biasJudge = new MockJudge({ answers: [{ opinions: [] }] });
    await new ToxicityMetric({ model: toxicityJudge }).measure(sarah);
    await new BiasMetric({ model: biasJudge }).measure(sarah);
    expect(toxicityJudge.calls[0]?.prompt).toBe(biasJudge.calls[0]?.prompt);
    expect(toxicityJudge.calls[0]?.jsonSchema).toEqual(biasJudge.calls[0]?.jsonSchema);
  });
});
