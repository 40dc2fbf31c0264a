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
import { ContextualRecallMetric } from "./contextual-recall-metric.ts";

const create = (options: Record<string, unknown>) => new ContextualRecallMetric(options);

const tower = {
  name: "tower",
  input: "Tell me about the Eiffel Tower.",
  expectedOutput:
    "The Eiffel Tower was finished in 1889. It was designed by Gustave Eiffel's company.",
  retrievalContext: [
    "The Eiffel Tower in Paris was finished in 1889 for the World's Fair.",
    "It is 330 metres tall.",
  ],
};

/** The tower case with an expected output of `count` sentences. */
const withSentences = (count: number) => ({
  ...tower,
  expectedOutput: Array.from({ length: count }, (_, index) => `Fact ${index + 1}.`).join(" "),
});

describeCustomMetricContract({
  name: "Contextual Recall",
  create,
  testCase: tower,
  answer: (call) =>
    call.kind === "verdicts"
      ? verdictsAnswer("yes", "no")()
      : { reason: "The score is 0.50 because no node says who designed the tower." },
});

// Expected scores: deepeval's own ContextualRecallMetric._calculate_score
// (deepeval/metrics/contextual_recall/contextual_recall.py at a2e0d4c) on the same verdicts,
// one per sentence of the expected output, run by `python3 test/fixtures/deepeval-scores.py`:
//   verdicts                strict   deepeval score        passes (score >= threshold)
//   [yes]                   no       1.0                   0.5: yes
//   [yes, yes, yes]         no       1.0                   0.5: yes
//   [yes, no]               no       0.5                   0.5: yes
//   [yes, no, no]           no       0.3333333333333333    0.5: no
//   [no]                    no       0.0                   0.5: no
//   [yes, yes, yes, no]     no       0.75                  0.8: no
//   [yes, yes]              yes      1.0                   1 (strict): yes
//   [yes, no]               yes      0                     1 (strict): no
//   []                      no       0                     0.5: no (an expected output with no sentence)
//   [idk, yes]              no       0.5 (idk counts as "no"; verdict re-asks, then errs)
// deepeval asks for the reason whatever the verdicts; verdict asks only when some sentence
// cannot be attributed.
const rows: ScoredRow[] = [
  {
    name: "the one sentence attributable: 1, verdict writes the reason",
    testCase: withSentences(1),
    verdicts: verdictsAnswer("yes"),
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because the one sentence of the expected output can be attributed to the retrieval context.",
    verdictCalls: 1,
  },
  {
    name: "all three sentences attributable: 1",
    testCase: withSentences(3),
    verdicts: verdictsAnswer("yes", "yes", "yes"),
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because all 3 sentences of the expected output can be attributed to the retrieval context.",
    verdictCalls: 1,
  },
  {
    name: "one of two attributable: 0.5 passes at the threshold, the judge explains",
    testCase: withSentences(2),
    verdicts: verdictsAnswer("yes", "no"),
    score: 0.5,
    success: true,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "one of three attributable: 1/3 fails",
    testCase: withSentences(3),
    verdicts: verdictsAnswer("yes", "no", "no"),
    score: 0.3333333333333333,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "nothing attributable: 0",
    testCase: withSentences(1),
    verdicts: verdictsAnswer("no"),
    score: 0,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "three of four: 0.75 below a 0.8 threshold",
    testCase: withSentences(4),
    verdicts: verdictsAnswer("yes", "yes", "yes", "no"),
    options: { threshold: 0.8 },
    score: 0.75,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "strict mode: all attributable stays 1 (threshold 1)",
    testCase: withSentences(2),
    verdicts: verdictsAnswer("yes", "yes"),
    options: { strictMode: true },
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because all 2 sentences of the expected output can be attributed to the retrieval context.",
    verdictCalls: 1,
  },
  {
    name: "strict mode: anything below 1 scores 0",
    testCase: withSentences(2),
    verdicts: verdictsAnswer("yes", "no"),
    options: { strictMode: true },
    score: 0,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "an expected output with no sentence: 0 (deepeval's zero rule), no judge call",
    testCase: { ...tower, expectedOutput: "…" },
    verdicts: verdictsAnswer(),
    score: 0,
    success: false,
    reason:
      "The score is 0.00 because the expected output has no sentence to attribute to the retrieval context.",
    verdictCalls: 0,
  },
];

describe("ContextualRecallMetric", () => {
  describe("scores scripted verdicts as deepeval does", () => {
    itScoresEachRow(create, rows);
  });

  it("refuses a case without retrieval context or expected output before any judge call", async () => {
    for (const testCase of [
      { ...tower, retrievalContext: [""] },
      { ...tower, expectedOutput: undefined },
    ]) {
      const judge = new MockJudge();
      const error = await new ContextualRecallMetric({ model: judge })
        .measure(testCase as never)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MissingTestCaseParamsError);
      expect(judge.calls).toHaveLength(0);
    }
  });

  it.each([
    ["a wrong verdict count", verdictsAnswer("yes", "no", "yes"), "expected exactly 2 verdicts"],
    ["all idk (deepeval would count them as no)", verdictsAnswer("idk", "idk"), "idk"],
  ])("re-asks %s once, then fails with a JudgeOutputError", async (_label, answer, problem) => {
    const judge = new MockJudge({ answers: answer });
    const metric = new ContextualRecallMetric({ model: judge });
    const error = await metric.measure(tower).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect(metric.error).toContain(problem);
    expect(judge.calls).toHaveLength(2);
  });

  it("asks about each sentence of the expected output in one call and explains the misses by number", async () => {
    const judge = new MockJudge({
      answers: [
        {
          verdicts: [
            { verdict: "yes", reason: "The 1st node says it 'was finished in 1889'." },
            { verdict: "no", reason: "No node says who designed the tower." },
          ],
        },
        { reason: "The score is 0.50 because no node says who designed the tower." },
      ],
    });
    const metric = new ContextualRecallMetric({ model: judge });
    expect(await metric.measure(tower)).toBe(0.5);
    expect(metric.details?.sentences).toEqual([
      "The Eiffel Tower was finished in 1889.",
      "It was designed by Gustave Eiffel's company.",
    ]);
    expect(judge.calls[0]?.prompt).toContain("Return exactly 2 verdicts");
    expect(judge.calls[1]?.prompt).toContain("Sentence 2: No node says who designed the tower.");
    expect(judge.calls[1]?.prompt).toContain(JSON.stringify(tower.expectedOutput));
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("shows each sentence with its verdict and reason as one step table", async () => {
    const metric = new ContextualRecallMetric({
      model: new MockJudge({ answers: [verdictsAnswer("yes", "yes")()] }),
    });
    const { data } = await metric.run(tower);
    expect(data.steps?.map((step) => step.label)).toEqual(["Sentences", "Verdicts"]);
    expect(data.steps?.[1]?.value).toHaveLength(2);
  });

  it("sends the expected output's images with both prompts, numbered in its sentences", async () => {
    const picture = image(PNG_BYTES);
    const judge = new MockJudge({
      answers: [
        verdictsAnswer("yes", "no")(),
        { reason: "The score is 0.50 because of the photo." },
      ],
    });
    await new ContextualRecallMetric({ model: judge }).measure({
      ...tower,
      expectedOutput: mm`It is in Paris. It looks like this: ${picture}`,
    });
    expect(judge.calls[0]?.images).toEqual([picture]);
    expect(judge.calls[0]?.prompt).toContain(JSON.stringify("It looks like this: [image 1]"));
    expect(judge.calls[1]?.images).toEqual([picture]);
  });
});
