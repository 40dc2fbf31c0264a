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
import { HallucinationMetric } from "./hallucination-metric.ts";
import { HallucinationTemplate } from "./prompts.ts";

const create = (options: Record<string, unknown>) => new HallucinationMetric(options);

const einstein = {
  name: "einstein",
  input: "Who won the Nobel Prize in 1968, and for what?",
  actualOutput:
    "Einstein won the Nobel Prize in 1969 for his discovery of the photoelectric effect.",
  context: [
    "Einstein won the Nobel Prize for his discovery of the photoelectric effect.",
    "Einstein won the Nobel Prize in 1968.",
  ],
};

/** The einstein case with `count` context passages. */
const withContexts = (count: number) => ({
  ...einstein,
  context: Array.from({ length: count }, (_, index) => `Passage ${index + 1} of the truth.`),
});

describeCustomMetricContract({
  name: "Hallucination",
  create,
  testCase: einstein,
  answer: (call) =>
    call.kind === "verdicts"
      ? verdictsAnswer("yes", "no")()
      : { reason: "The score is 0.50 because the output gives 1969, not 1968." },
});

// Expected scores: deepeval's own HallucinationMetric._calculate_score
// (deepeval/metrics/hallucination/hallucination.py at a2e0d4c) on the same verdicts, run by
// `python3 test/fixtures/deepeval-scores.py`:
//   verdicts                 strict   deepeval score   passes (score <= threshold)
//   [yes]                    no       0.0              0.5: yes
//   [yes, yes, yes]          no       0.0              0.5: yes
//   [yes, no]                no       0.5              0.5: yes
//   [no, no, yes]            no       0.6666666666666666   0.5: no
//   [no]                     no       1.0              0.5: no
//   [yes, yes, yes, no]      no       0.25             0.3: yes
//   [yes, no]                yes      1                0 (strict): no
//   [yes, yes]               yes      0.0              0 (strict): yes
//   []                       no       0                (no context: verdict refuses the case)
// deepeval asks for the reason whatever the verdicts; verdict asks only when some context is
// contradicted, and writes it itself otherwise.
const rows: ScoredRow[] = [
  {
    name: "one context, not contradicted: 0, verdict writes the reason",
    testCase: withContexts(1),
    verdicts: verdictsAnswer("yes"),
    score: 0,
    success: true,
    reason: "The score is 0.00 because the output does not contradict the one context.",
    verdictCalls: 1,
  },
  {
    name: "three contexts, none contradicted: 0",
    testCase: withContexts(3),
    verdicts: verdictsAnswer("yes", "yes", "yes"),
    score: 0,
    success: true,
    reason: "The score is 0.00 because the output contradicts none of the 3 contexts.",
    verdictCalls: 1,
  },
  {
    name: "one of two contradicted: 0.5 passes at the threshold, the judge explains",
    testCase: withContexts(2),
    verdicts: verdictsAnswer("yes", "no"),
    score: 0.5,
    success: true,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "two of three contradicted: 2/3 fails",
    testCase: withContexts(3),
    verdicts: verdictsAnswer("no", "no", "yes"),
    score: 0.6666666666666666,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "the only context contradicted: 1",
    testCase: withContexts(1),
    verdicts: verdictsAnswer("no"),
    score: 1,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "a lower threshold: 0.25 <= 0.3 passes",
    testCase: withContexts(4),
    verdicts: verdictsAnswer("yes", "yes", "yes", "no"),
    options: { threshold: 0.3 },
    score: 0.25,
    success: true,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "strict mode: any contradiction scores 1 and fails (threshold 0)",
    testCase: withContexts(2),
    verdicts: verdictsAnswer("yes", "no"),
    options: { strictMode: true },
    score: 1,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "strict mode: no contradiction scores 0 and passes",
    testCase: withContexts(2),
    verdicts: verdictsAnswer("yes", "yes"),
    options: { strictMode: true },
    score: 0,
    success: true,
    reason: "The score is 0.00 because the output contradicts none of the 2 contexts.",
    verdictCalls: 1,
  },
  {
    name: "threshold null: scored, neither passing nor failing",
    testCase: withContexts(2),
    verdicts: verdictsAnswer("no", "no"),
    options: { threshold: null },
    score: 1,
    success: null,
    reason: "judge",
    verdictCalls: 1,
  },
];

describe("HallucinationMetric", () => {
  describe("scores scripted verdicts as deepeval does", () => {
    itScoresEachRow(create, rows);
  });

  it("refuses a case without context before any judge call (deepeval would score it 0)", async () => {
    for (const context of [undefined, [], ["  ", "\u200b"]]) {
      const judge = new MockJudge();
      const metric = new HallucinationMetric({ model: judge });
      const error = await metric
        .measure({ ...einstein, context } as never)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MissingTestCaseParamsError);
      expect((error as Error).message).toContain('"context"');
      expect((error as Error).message).toContain('"einstein"');
      expect(judge.calls).toHaveLength(0);
    }
  });

  it.each([
    ["a wrong verdict count", verdictsAnswer("yes"), "expected exactly 2 verdicts"],
    ["all idk (not a verdict of this metric)", verdictsAnswer("idk", "idk"), "idk"],
  ])("re-asks %s once, then fails with a JudgeOutputError", async (_label, answer, problem) => {
    const judge = new MockJudge({ answers: answer });
    const metric = new HallucinationMetric({ model: judge });
    const error = await metric.measure(einstein).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect((error as JudgeOutputError).step).toBe("generateVerdicts");
    expect(metric.error).toContain(problem);
    expect(metric.score).toBeNull();
    expect(judge.calls).toHaveLength(2);
  });

  it("asks about every context in one call, quoted as data, and explains contradictions", async () => {
    const judge = new MockJudge({
      answers: [
        {
          verdicts: [
            { verdict: "yes", reason: "It agrees on the photoelectric effect." },
            { verdict: "no", reason: "The context says 1968, not 1969." },
          ],
        },
        { reason: "The score is 0.50 because the output gives 1969 where the context says 1968." },
      ],
    });
    const metric = new HallucinationMetric({ model: judge });
    expect(await metric.measure(einstein)).toBe(0.5);
    expect(metric.verdicts).toEqual([
      { verdict: "yes", reason: "It agrees on the photoelectric effect." },
      { verdict: "no", reason: "The context says 1968, not 1969." },
    ]);
    expect(metric.details?.contexts).toEqual(einstein.context);
    expect(judge.calls[0]?.prompt).toContain(JSON.stringify(einstein.actualOutput));
    expect(judge.calls[0]?.prompt).toContain("Return exactly 2 verdicts");
    expect(judge.calls[1]?.prompt).toContain("Context 2: The context says 1968, not 1969.");
    expect(judge.calls[1]?.prompt).toContain("Context 1: It agrees on the photoelectric effect.");
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("shows each context with its verdict and reason as one step table", async () => {
    const metric = new HallucinationMetric({
      model: new MockJudge({ answers: [verdictsAnswer("yes", "yes")()] }),
    });
    const { data } = await metric.run(einstein);
    expect(data.steps).toEqual([
      { label: "Contexts", value: einstein.context },
      {
        label: "Verdicts",
        value: [
          { verdict: "yes", reason: "Item 1: yes." },
          { verdict: "yes", reason: "Item 2: yes." },
        ],
        // A contradiction counts against the output: the dashboard colours "no" as bad.
        flaggedVerdict: "no",
      },
    ]);
  });

  it("sends the output's images with the verdict prompt, and none with the reason", async () => {
    const picture = image(PNG_BYTES);
    const judge = new MockJudge({
      answers: [
        verdictsAnswer("no", "yes")(),
        { reason: "The score is 0.50 because of the photo." },
      ],
    });
    await new HallucinationMetric({ model: judge }).measure({
      ...einstein,
      actualOutput: mm`Einstein won it in 1969: ${picture}`,
    });
    expect(judge.calls[0]?.images).toEqual([picture]);
    expect(judge.calls[0]?.prompt).toContain("[image 1]");
    expect(judge.calls[0]?.prompt).toContain("[image N]");
    expect(judge.calls[1]?.images).toEqual([]);
  });

  it("takes a template that overrides one step", async () => {
    class Terse extends HallucinationTemplate {
      static override generateVerdicts(args: { contexts: string[] }) {
        return `Contradicted? ${JSON.stringify(args.contexts)}`;
      }
    }
    const judge = new MockJudge({ answers: [verdictsAnswer("yes", "yes")()] });
    const metric = new HallucinationMetric({ model: judge, evaluationTemplate: Terse });
    expect(await metric.measure(einstein)).toBe(0);
    expect(judge.calls[0]?.prompt).toBe(`Contradicted? ${JSON.stringify(einstein.context)}`);
  });
});
