import { describe, expect, it } from "vitest";
import { PNG_BYTES } from "../../../test/fixtures/images.ts";
import { itScoresEachRow, type ScoredRow } from "../../../test/fixtures/scored-verdicts.ts";
import { JudgeOutputError } from "../../errors/judge-output-error.ts";
import { MissingTestCaseParamsError } from "../../errors/missing-test-case-params-error.ts";
import { image, mm } from "../../test-case/image.ts";
import { describeCustomMetricContract } from "../../testing/metric-contract/custom-metric-contract.ts";
import { type MockAnswer, MockJudge, type MockJudgeCall } from "../../testing/mock-judge.ts";
import { ContextualRelevancyMetric } from "./contextual-relevancy-metric.ts";

const create = (options: Record<string, unknown>) => new ContextualRelevancyMetric(options);

const einstein = {
  name: "einstein",
  input: "What were some of Einstein's achievements?",
  retrievalContext: [
    "Einstein won the Nobel Prize for his discovery of the photoelectric effect. He won the Nobel Prize in 1968. There was a cat.",
  ],
};

/** A case of one node per list, and a judge answering each node with its list's verdicts. */
function nodes(...perNode: string[][]): Pick<ScoredRow, "testCase" | "verdicts"> {
  return {
    testCase: {
      ...einstein,
      retrievalContext: perNode.map((_verdicts, index) => `Node ${index + 1} text.`),
    },
    verdicts: (call: MockJudgeCall): MockAnswer => {
      const node = Number(/Node (\d+) text\./.exec(call.prompt)?.[1]);
      return {
        verdicts: (perNode[node - 1] ?? []).map((verdict, index) => ({
          statement: `Statement ${index + 1} of node ${node}.`,
          verdict,
          reason: verdict === "no" ? `Statement ${index + 1} is off topic.` : null,
        })),
      };
    },
  };
}

describeCustomMetricContract({
  name: "Contextual Relevancy",
  create,
  testCase: einstein,
  answer: (call) =>
    call.kind === "verdicts"
      ? nodes(["yes", "yes", "no"]).verdicts({ ...call, prompt: "Node 1 text." })
      : { reason: "The score is 0.67 because 'There was a cat' has nothing to do with Einstein." },
});

// Expected scores: deepeval's own ContextualRelevancyMetric._calculate_score
// (deepeval/metrics/contextual_relevancy/contextual_relevancy.py at a2e0d4c) on the same
// verdicts, one list per node, run by `python3 test/fixtures/deepeval-scores.py`:
//   verdicts per node              strict   deepeval score        passes (score >= threshold)
//   [[yes]]                        no       1.0                   0.5: yes
//   [[yes, yes], [yes]]            no       1.0                   0.5: yes
//   [[yes, no], [yes]]             no       0.6666666666666666    0.5: yes
//   [[no], [no, yes, no]]          no       0.25                  0.5: no
//   [[no]]                         no       0.0                   0.5: no
//   [[yes, yes, no], [yes]]        yes      0                     1 (strict): no
//   [[yes], [yes]]                 yes      1.0                   1 (strict): yes
//   []                             no       0                     (no node: verdict refuses the case)
//   [[idk, yes]]                   no       0.5 (idk counts as "no"; verdict re-asks, then errs)
// deepeval asks for the reason whatever the verdicts; verdict asks only when some statement
// is irrelevant.
const rows: ScoredRow[] = [
  {
    name: "one relevant statement: 1, verdict writes the reason",
    ...nodes(["yes"]),
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because the one statement of the retrieval context is relevant to the input.",
    verdictCalls: 1,
  },
  {
    name: "every statement of two nodes relevant: 1, one call per node",
    ...nodes(["yes", "yes"], ["yes"]),
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because all 3 statements of the retrieval context are relevant to the input.",
    verdictCalls: 2,
  },
  {
    name: "two of three statements relevant, over two nodes: 2/3, the judge explains",
    ...nodes(["yes", "no"], ["yes"]),
    score: 0.6666666666666666,
    success: true,
    reason: "judge",
    verdictCalls: 2,
  },
  {
    name: "one of four relevant: 0.25 fails",
    ...nodes(["no"], ["no", "yes", "no"]),
    score: 0.25,
    success: false,
    reason: "judge",
    verdictCalls: 2,
  },
  {
    name: "nothing relevant: 0",
    ...nodes(["no"]),
    score: 0,
    success: false,
    reason: "judge",
    verdictCalls: 1,
  },
  {
    name: "strict mode: anything below 1 scores 0 (threshold 1)",
    ...nodes(["yes", "yes", "no"], ["yes"]),
    options: { strictMode: true },
    score: 0,
    success: false,
    reason: "judge",
    verdictCalls: 2,
  },
  {
    name: "strict mode: all relevant stays 1",
    ...nodes(["yes"], ["yes"]),
    options: { strictMode: true },
    score: 1,
    success: true,
    reason:
      "The score is 1.00 because all 2 statements of the retrieval context are relevant to the input.",
    verdictCalls: 2,
  },
  {
    name: "asyncMode false: the same score, the nodes asked one after another",
    ...nodes(["yes", "no"], ["yes"]),
    options: { asyncMode: false },
    score: 0.6666666666666666,
    success: true,
    reason: "judge",
    verdictCalls: 2,
  },
];

describe("ContextualRelevancyMetric", () => {
  describe("scores scripted verdicts as deepeval does", () => {
    itScoresEachRow(create, rows);
  });

  it("refuses a case without retrieval context before any judge call (deepeval would score it 0)", async () => {
    for (const retrievalContext of [undefined, [], [" ", ""]]) {
      const judge = new MockJudge();
      const error = await new ContextualRelevancyMetric({ model: judge })
        .measure({ ...einstein, retrievalContext } as never)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MissingTestCaseParamsError);
      expect((error as Error).message).toContain('"retrievalContext"');
      expect(judge.calls).toHaveLength(0);
    }
  });

  it("gives a node without any statement one irrelevant statement, without asking the judge", async () => {
    const judge = new MockJudge({
      answers: (call) =>
        call.kind === "reason"
          ? { reason: "The score is 0.50 because the second node is empty." }
          : { verdicts: [{ statement: "Einstein won a Nobel Prize.", verdict: "yes" }] },
    });
    const metric = new ContextualRelevancyMetric({ model: judge });
    expect(await metric.measure({ ...einstein, retrievalContext: ["Einstein won.", "—"] })).toBe(
      0.5,
    );
    expect(judge.calls.map((call) => call.kind)).toEqual(["verdicts", "reason"]);
    expect(metric.verdicts?.[1]).toEqual({
      node: 2,
      statement: "—",
      verdict: "no",
      reason: "The node holds no statement.",
    });
  });

  it.each([
    ["no statement for a node", { verdicts: [] }, "list every statement of the node"],
    [
      "idk verdicts (deepeval would count them as no)",
      { verdicts: [{ statement: "A.", verdict: "idk" }] },
      "idk",
    ],
    ["a verdict without its statement", { verdicts: [{ verdict: "yes" }] }, "statement"],
  ])("re-asks %s once, then fails with a JudgeOutputError", async (_label, answer, problem) => {
    const judge = new MockJudge({ answers: () => answer });
    const metric = new ContextualRelevancyMetric({ model: judge });
    const error = await metric.measure(einstein).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect(metric.error).toContain(problem);
    expect(judge.calls).toHaveLength(2);
  });

  it("breaks each node into statements, judges them against the input, and explains", async () => {
    const judge = new MockJudge({
      answers: [
        {
          verdicts: [
            {
              statement:
                "Einstein won the Nobel Prize for his discovery of the photoelectric effect in 1968.",
              verdict: "yes",
            },
            {
              statement: "There was a cat.",
              verdict: "no",
              reason: "'There was a cat' has nothing to do with Einstein's achievements.",
            },
          ],
        },
        { reason: "The score is 0.50 because the context mentions a cat." },
      ],
    });
    const metric = new ContextualRelevancyMetric({ model: judge });
    expect(await metric.measure(einstein)).toBe(0.5);
    expect(judge.calls[0]?.prompt).toContain(JSON.stringify(einstein.retrievalContext[0]));
    expect(judge.calls[0]?.prompt).toContain(JSON.stringify(einstein.input));
    expect(judge.calls[1]?.prompt).toContain(
      "'There was a cat' has nothing to do with Einstein's achievements.",
    );
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("shows each statement with its node, verdict and reason as one step table", async () => {
    const { testCase, verdicts } = nodes(["yes", "no"], ["yes"]);
    const metric = new ContextualRelevancyMetric({
      model: new MockJudge({
        answers: (call) =>
          call.kind === "reason" ? { reason: "The score is 0.67 because of one." } : verdicts(call),
      }),
    });
    const { data } = await metric.run(testCase);
    expect(data.steps).toEqual([
      {
        label: "Statements",
        value: ["Statement 1 of node 1.", "Statement 2 of node 1.", "Statement 1 of node 2."],
      },
      {
        label: "Verdicts",
        value: [
          { node: 1, verdict: "yes", reason: null },
          { node: 1, verdict: "no", reason: "Statement 2 is off topic." },
          { node: 2, verdict: "yes", reason: null },
        ],
      },
    ]);
  });

  it("sends the input's images with every node's prompt", async () => {
    const picture = image(PNG_BYTES);
    const judge = new MockJudge({
      answers: () => ({ verdicts: [{ statement: "It is a tower.", verdict: "yes" }] }),
    });
    await new ContextualRelevancyMetric({ model: judge }).measure({
      input: mm`What is this? ${picture}`,
      retrievalContext: ["A tower.", "Another tower."],
    });
    expect(judge.calls).toHaveLength(2);
    for (const call of judge.calls) expect(call.images).toEqual([picture]);
  });
});
