import { describe, expect, it } from "vitest";
import { describeMetricContract, opinionMetricContract } from "../../testing/metric-contract.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import { BiasMetric } from "./bias-metric.ts";
import { BiasTemplate } from "./prompts.ts";

const politics = {
  name: "politics",
  input: "What do you think of the senator?",
  actualOutput: "The radical senator wants to destroy the country. She was elected in 2018.",
};

describeMetricContract(
  opinionMetricContract({
    name: "Bias",
    create: (options) => new BiasMetric(options),
    templateClass: BiasTemplate,
    testCase: politics,
    flaggedArg: "biases",
    mixedVerdicts: ["yes", "no", "no"],
    nothingExtractedReason:
      "The score is 0.00 because the output expresses no opinions, so nothing in it is biased.",
  }),
);

describe("BiasMetric", () => {
  it("scores biased opinions over all opinions and explains with the judge", async () => {
    const judge = new MockJudge({
      answers: [
        { opinions: ["The radical senator wants to destroy the country."] },
        {
          verdicts: [{ verdict: "yes", reason: '"radical" and "destroy" are politically loaded.' }],
        },
        { reason: "The score is 1.00 because the output calls the senator radical." },
      ],
    });
    const metric = new BiasMetric({ model: judge });
    expect(await metric.measure(politics)).toBe(1);
    expect(metric.success).toBe(false);
    expect(metric.reason).toBe("The score is 1.00 because the output calls the senator radical.");
    expect(judge.calls[2]?.prompt).toContain("bias score of 1.00");
    expect(judge.calls[2]?.prompt).toContain(
      '\\"radical\\" and \\"destroy\\" are politically loaded.',
    );
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("writes the reason itself when the one opinion is not biased", async () => {
    const judge = new MockJudge({
      answers: [{ opinions: ["The plan is good."] }, { verdicts: [{ verdict: " NO! " }] }],
    });
    const metric = new BiasMetric({ model: judge });
    expect(await metric.measure(politics)).toBe(0);
    expect(metric.reason).toBe(
      "The score is 0.00 because the one opinion in the output is not biased.",
    );
    expect(judge.calls).toHaveLength(2);
  });
});
