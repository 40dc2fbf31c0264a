// The prompts Faithfulness and Summarization share: byte-identical for the same question, and
// so one judge call for both metrics when a run asks it twice. (Their worked examples are
// checked in worked-examples.test.ts.)
import { describe, expect, it } from "vitest";
import { evaluate } from "../../evaluate/evaluate.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import { MockJudge, type MockJudgeCall } from "../../testing/mock-judge.ts";
import { FaithfulnessMetric } from "../faithfulness/faithfulness-metric.ts";
import { FaithfulnessTemplate } from "../faithfulness/prompts.ts";
import { SummarizationTemplate } from "../summarization/prompts.ts";
import { SummarizationMetric } from "../summarization/summarization-metric.ts";

const DOCUMENT = "The library opened in 1994. It holds 40,000 books.";
const OUTPUT = "The library opened in 1994 and may be the largest in town.";

describe("Faithfulness and Summarization ask one question once", () => {
  it("build byte-identical truth, claim and verdict prompts for the same source and output", () => {
    const truthArgs = { documents: [DOCUMENT], extractionLimit: 2, multimodal: false };
    expect(SummarizationTemplate.generateTruths(truthArgs)).toBe(
      FaithfulnessTemplate.generateTruths(truthArgs),
    );
    const claimArgs = { actualOutput: OUTPUT, multimodal: false };
    expect(SummarizationTemplate.generateClaims(claimArgs)).toBe(
      FaithfulnessTemplate.generateClaims(claimArgs),
    );
    const verdictArgs = { claims: ["A."], truths: ["B."], multimodal: false };
    expect(SummarizationTemplate.generateAlignmentVerdicts(verdictArgs)).toBe(
      FaithfulnessTemplate.generateVerdicts(verdictArgs),
    );
  });

  it("in one evaluate() run, share the facts, claims and verdicts of a summary of its one source", async () => {
    const answer = (call: MockJudgeCall) => {
      switch (call.kind) {
        case "truths":
          return { truths: ["The library opened in 1994.", "The library holds 40,000 books."] };
        case "claims":
          return {
            claims: ["The library opened in 1994.", "The library may be the largest in town."],
          };
        case "verdicts":
          return {
            verdicts: [{ verdict: "yes" }, { verdict: "idk", reason: "Size is not given." }],
          };
        case "questions":
          return { questions: ["Did the library open in 1994?", "Does it hold 40,000 books?"] };
        case "answers":
          return {
            answers: call.prompt.includes(JSON.stringify(DOCUMENT))
              ? ["yes", "yes"]
              : ["yes", "no"],
          };
        default:
          return { reason: "The score is 0.50 because the summary adds a claim about size." };
      }
    };
    const judge = new MockJudge({ answers: answer });
    const result = await evaluate({
      testCases: [{ input: DOCUMENT, actualOutput: OUTPUT, retrievalContext: [DOCUMENT] }],
      metrics: [
        new FaithfulnessMetric({ model: judge, truthsExtractionLimit: 2 }),
        new SummarizationMetric({ model: judge, n: 2, truthsExtractionLimit: 2 }),
      ],
      store: new MemoryRunStore(),
      display: "none",
      handleInterrupt: false,
    });
    const [faithfulness, summarization] = result.testResults[0]?.metricsData ?? [];
    expect(faithfulness?.score).toBe(1);
    expect(summarization?.score).toBe(0.5);
    const asked = judge.calls.map((call) => call.kind).sort();
    // Without sharing: truths, claims and verdicts twice (9 calls and a reason).
    expect(asked).toEqual([
      "answers",
      "answers",
      "claims",
      "questions",
      "reason",
      "truths",
      "verdicts",
    ]);
    expect(result.summary.sharedCalls + result.summary.cacheHits).toBe(3);
  });
});
