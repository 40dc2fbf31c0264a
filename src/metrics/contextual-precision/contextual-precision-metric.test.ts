import { describe, expect, it } from "vitest";
import { PNG_BYTES } from "../../../test/fixtures/images.ts";
import {
  itScoresEachRow,
  type ScoredRow,
  verdictsAnswer,
} from "../../../test/fixtures/scored-verdicts.ts";
import { JudgeOutputError } from "../../errors/judge-output-error.ts";
import { MissingTestCaseParamsError } from "../../errors/missing-test-case-params-error.ts";
import { image, mm } from "../../test-case/image.ts";
import { describeCustomMetricContract } from "../../testing/metric-contract/custom-metric-contract.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import {
  ContextualPrecisionMetric,
  weightedCumulativePrecision,
} from "./contextual-precision-metric.ts";

const create = (options: Record<string, unknown>) => new ContextualPrecisionMetric(options);

const einstein = {
  name: "einstein",
  input: "Who won the Nobel Prize in 1968 and for what?",
  expectedOutput:
    "Einstein won the Nobel Prize in 1968 for his discovery of the photoelectric effect.",
  retrievalContext: [
    "Einstein won the Nobel Prize for his discovery of the photoelectric effect",
    "He won the Nobel Prize in 1968.",
    "There was a cat.",
  ],
};

/** The einstein case with `count` nodes. */
const withNodes = (count: number) => ({
  ...einstein,
  retrievalContext: Array.from({ length: count }, (_, index) => `Node ${index + 1} text.`),
});

describeCustomMetricContract({
  name: "Contextual Precision",
  create,
  testCase: einstein,
  answer: (call) =>
    call.kind === "verdicts"
      ? verdictsAnswer("yes", "no", "yes")()
      : {
          reason: "The score is 0.83 because the second node, about a cat, outranks a useful one.",
        },
});

// Expected scores: deepeval's own ContextualPrecisionMetric._calculate_score
// (deepeval/metrics/contextual_precision/contextual_precision.py at a2e0d4c) on the same
// verdicts in rank order, run by `python3 test/fixtures/deepeval-scores.py`:
//   verdicts                strict   deepeval score        passes (score >= threshold)
//   [yes]                   no       1.0                   0.5: yes
//   [yes, yes, yes]         no       1.0                   0.5: yes
//   [yes, yes, no]          no       1.0                   0.5: yes
//   [no, yes]               no       0.5                   0.5: yes
//   [yes, no, yes]          no       0.8333333333333333    0.9: no
//   [no, no, yes]           no       0.3333333333333333    0.5: no
//   [no, no]                no       0                     0.5: no
//   [yes, no, no, yes]      no       0.75                  0.5: yes
//   [yes, no]               yes      1.0                   1 (strict): yes
//   [yes, no, yes]          yes      0                     1 (strict): no
//   []                      no       0                     (no node: verdict refuses the case)
//   [idk, yes]              no       0.5 (idk counts as "no"; verdict re-asks, then errs)
// deepeval asks for the reason whatever the verdicts; verdict asks only when the score is
// below 1 (a node of no use outranks a useful one, or none is useful).
const rows: ScoredRow[] = [
  {
    name: "the one node useful: 1, verdict writes the reason",
    testCase: withNodes(1),
    verdicts: verdictsAnswer("yes"),
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because the one node of the retrieval context is useful for the expected output.",
    verdictCalls: 1,
  },
  {
    name: "all three nodes useful: 1",
    testCase: withNodes(3),
    verdicts: verdictsAnswer("yes", "yes", "yes"),
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because all 3 nodes of the retrieval context are useful for the expected output.",
    verdictCalls: 1,
  },
  {
    name: "useful nodes first, then one of no use: still 1",
    testCase: withNodes(3),
    verdicts: verdictsAnswer("yes", "yes", "no"),
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because the 2 useful nodes of the retrieval context are ranked first, above the one node of no use.",
    verdictCalls: 1,
  },
  {
    name: "the useful node ranked second: 0.5, the judge explains",
    testCase: withNodes(2),
    verdicts: verdictsAnswer("no", "yes"),
    score: 0.5,
    success: true,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "a node of no use between useful ones: 5/6, below a 0.9 threshold",
    testCase: withNodes(3),
    verdicts: verdictsAnswer("yes", "no", "yes"),
    options: { threshold: 0.9 },
    score: 0.8333333333333333,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "the useful node ranked last of three: 1/3",
    testCase: withNodes(3),
    verdicts: verdictsAnswer("no", "no", "yes"),
    score: 0.3333333333333333,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "no useful node: 0",
    testCase: withNodes(2),
    verdicts: verdictsAnswer("no", "no"),
    score: 0,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "two useful nodes at ranks 1 and 4: 0.75",
    testCase: withNodes(4),
    verdicts: verdictsAnswer("yes", "no", "no", "yes"),
    score: 0.75,
    success: true,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "strict mode: a score of 1 stays 1 (threshold 1)",
    testCase: withNodes(2),
    verdicts: verdictsAnswer("yes", "no"),
    options: { strictMode: true },
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because the one useful node of the retrieval context is ranked first, above the one node of no use.",
    verdictCalls: 1,
  },
  {
    name: "strict mode: anything below 1 scores 0",
    testCase: withNodes(3),
    verdicts: verdictsAnswer("yes", "no", "yes"),
    options: { strictMode: true },
    score: 0,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
];

describe("ContextualPrecisionMetric", () => {
  describe("scores scripted verdicts as deepeval does", () => {
    itScoresEachRow(create, rows);
  });

  it("computes deepeval's weighted cumulative precision, 0 for no verdicts", () => {
    const of = (...verdicts: string[]) =>
      weightedCumulativePrecision(verdicts.map((verdict) => ({ verdict })));
    expect(of()).toBe(0);
    expect(of("no", "no")).toBe(0);
    expect(of("yes", "no", "yes")).toBe(0.8333333333333333);
    expect(of("no", "yes", "no", "yes")).toBe(0.5);
  });

  it("refuses a case without retrieval context or expected output before any judge call", async () => {
    const cases = [
      { ...einstein, retrievalContext: [] },
      { ...einstein, retrievalContext: undefined },
      { ...einstein, expectedOutput: " " },
    ];
    for (const testCase of cases) {
      const judge = new MockJudge();
      const error = await new ContextualPrecisionMetric({ model: judge })
        .measure(testCase as never)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MissingTestCaseParamsError);
      expect(judge.calls).toHaveLength(0);
    }
  });

  it("needs no actual output (deepeval's required fields: input, retrieval context, expected output)", async () => {
    const { actualOutput: _none, ...withoutOutput } = { ...einstein, actualOutput: "x" };
    const judge = new MockJudge({ answers: [verdictsAnswer("yes", "yes", "no")()] });
    expect(await new ContextualPrecisionMetric({ model: judge }).measure(withoutOutput)).toBe(1);
  });

  it.each([
    ["a wrong verdict count", verdictsAnswer("yes", "no"), "expected exactly 3 verdicts"],
    ["all idk (deepeval would count them as no)", verdictsAnswer("idk", "idk", "idk"), "idk"],
  ])("re-asks %s once, then fails with a JudgeOutputError", async (_label, answer, problem) => {
    const judge = new MockJudge({ answers: answer });
    const metric = new ContextualPrecisionMetric({ model: judge });
    const error = await metric.measure(einstein).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect(metric.error).toContain(problem);
    expect(judge.calls).toHaveLength(2);
  });

  it("asks about the nodes in rank order in one call, and explains with each node's rank", async () => {
    const judge = new MockJudge({
      answers: [
        {
          verdicts: [
            { verdict: "yes", reason: "It names the photoelectric effect." },
            { verdict: "no" },
            { verdict: "yes", reason: "It gives the year." },
          ],
        },
        { reason: "The score is 0.83 because the second node, about a cat, is ranked too high." },
      ],
    });
    const metric = new ContextualPrecisionMetric({ model: judge });
    // The cat moved up to the middle.
    const testCase = {
      ...einstein,
      retrievalContext: [
        einstein.retrievalContext[0] as string,
        "There was a cat.",
        "He won the Nobel Prize in 1968.",
      ],
    };
    expect(await metric.measure(testCase)).toBe(0.8333333333333333);
    expect(metric.details?.nodes).toEqual(testCase.retrievalContext);
    const [verdictCall, reasonCall] = judge.calls;
    expect(verdictCall?.prompt).toContain(JSON.stringify(einstein.expectedOutput));
    expect(verdictCall?.prompt).toContain("Return exactly 3 verdicts");
    expect(reasonCall?.prompt).toContain("node 1 useful, node 2 of no use, node 3 useful.");
    expect(reasonCall?.prompt).toContain(JSON.stringify("It names the photoelectric effect."));
    // A verdict without a reason is explained by its node's text.
    expect(reasonCall?.prompt).toContain(JSON.stringify('"There was a cat."'));
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("shows each node with its verdict and reason as one step table", async () => {
    const metric = new ContextualPrecisionMetric({
      model: new MockJudge({ answers: [verdictsAnswer("yes", "yes", "no")()] }),
    });
    const { data } = await metric.run(einstein);
    expect(data.steps?.map((step) => step.label)).toEqual(["Nodes", "Verdicts"]);
    expect(data.steps?.[0]?.value).toEqual(einstein.retrievalContext);
    expect(data.steps?.[1]?.value).toHaveLength(3);
  });

  it("sends the images of input and expected output with the verdicts, the input's with the reason", async () => {
    const question = image(PNG_BYTES);
    const answer = image("https://images.example.com/tower.png");
    const judge = new MockJudge({
      answers: [verdictsAnswer("no", "yes")(), { reason: "The score is 0.50 because of rank." }],
    });
    await new ContextualPrecisionMetric({ model: judge }).measure({
      input: mm`What is this landmark? ${question}`,
      expectedOutput: mm`The Eiffel Tower: ${answer}`,
      retrievalContext: ["A cat.", "The Eiffel Tower is in Paris."],
    });
    expect(judge.calls[0]?.images).toEqual([question, answer]);
    expect(judge.calls[0]?.prompt).toContain("The Eiffel Tower: [image 2]");
    expect(judge.calls[1]?.images).toEqual([question]);
  });
});
