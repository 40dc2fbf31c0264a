import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import { JudgeOutputError } from "../errors/judge-output-error.ts";
import { type MockAnswer, MockJudge } from "../testing/mock-judge.ts";
import { createDirectTransport } from "./direct-transport.ts";
import { JudgeLedger } from "./judge-ledger.ts";
import { MAX_ANSWER_CHARACTERS } from "./parse-judge-text.ts";
import { askJudge, askJudgeWithTokens, describeIncompleteFinish } from "./structured-output.ts";

const schema = z.object({ opinions: z.array(z.string()) });
const whole = '{"opinions": ["Sarah is kind."]}';

async function ask(answers: MockAnswer[]) {
  const judge = new MockJudge({ answers });
  const result = await askJudge({
    judge,
    transport: createDirectTransport(),
    ledger: new JudgeLedger(),
    step: { metric: "Toxicity", step: "generateOpinions", prompt: "P", images: [], schema },
  }).then(
    (value) => ({ value, error: null }),
    (error: unknown) => ({ value: null, error }),
  );
  return { judge, ...result };
}

describe("askJudge: only whole answers", () => {
  it.each([
    "length",
    "max_tokens",
    "max_output_tokens",
    "MAX_TOKENS",
    "content-filter",
    "content_filter",
    "interrupted",
  ])(
    'refuses a complete-looking answer whose finish reason is "%s", and re-asks once',
    async (finishReason) => {
      const { judge, value } = await ask([
        { text: whole, finishReason },
        { text: whole, finishReason: "stop" },
      ]);
      expect(value).toEqual({ opinions: ["Sarah is kind."] });
      expect(judge.calls).toHaveLength(2);
      expect(judge.calls[1]?.prompt).toContain(
        `the answer was cut off (finish reason "${finishReason}"`,
      );
    },
  );

  it("reads a whole object in a code fence left open when the judge stopped by itself", async () => {
    const { judge, value } = await ask([{ text: `\`\`\`json\n${whole}\n`, finishReason: "stop" }]);
    expect(value).toEqual({ opinions: ["Sarah is kind."] });
    expect(judge.calls).toHaveLength(1);
  });

  it("reports an answer cut off twice as a JudgeOutputError with the raw text", async () => {
    const { error } = await ask([
      { text: '{"opinions": ["Sarah', finishReason: "length" },
      { text: '{"opinions": ["Sarah is', finishReason: "length" },
    ]);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect(error).toMatchObject({
      metric: "Toxicity",
      step: "generateOpinions",
      rawText: '{"opinions": ["Sarah is',
    });
    expect((error as Error).message).toContain("the answer was cut off");
  });

  it("refuses a structured object whose finish reason says it was cut off", async () => {
    const { judge } = await ask([
      { object: { opinions: [] }, finishReason: "length" },
      { object: { opinions: ["Sarah is kind."] } },
    ]);
    expect(judge.calls).toHaveLength(2);
  });

  it("refuses a structured object larger than any step needs", async () => {
    const huge = { opinions: ["x".repeat(MAX_ANSWER_CHARACTERS)] };
    const { error } = await ask([{ object: huge }, { object: huge }]);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect((error as Error).message).toContain(`more than the ${MAX_ANSWER_CHARACTERS}`);
  });

  it.each(["stop", "STOP", "end_turn", "tool-calls", "other", undefined])(
    "takes the finish reason %j as a whole answer",
    (finishReason) => {
      expect(describeIncompleteFinish(finishReason)).toBeNull();
    },
  );
});

describe("askJudge: only one answer", () => {
  const ambiguous =
    'The text says {"opinions": []} but my answer is {"opinions": ["Sarah is kind."]}';

  it("re-asks an answer holding two differing answers, saying so, and reads the re-ask", async () => {
    const { judge, value } = await ask([ambiguous, whole]);
    expect(value).toEqual({ opinions: ["Sarah is kind."] });
    expect(judge.calls).toHaveLength(2);
    expect(judge.calls[1]?.prompt).toContain(
      "Problem: the answer held 2 differing answers of the shape asked for",
    );
  });

  it("reports an answer ambiguous twice as a JudgeOutputError naming how many answers it held", async () => {
    const three = `${ambiguous}\nor {"opinions": ["Sarah is rude."]}`;
    const { error, judge } = await ask([ambiguous, three]);
    expect(judge.calls).toHaveLength(2);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect(error).toMatchObject({ metric: "Toxicity", step: "generateOpinions", rawText: three });
    expect((error as Error).message).toContain("the answer held 3 differing answers");
  });

  it("reads the same answer given twice without a re-ask", async () => {
    const { judge, value } = await ask([`${whole}\n\`\`\`json\n${whole}\n\`\`\``]);
    expect(value).toEqual({ opinions: ["Sarah is kind."] });
    expect(judge.calls).toHaveLength(1);
  });
});

describe("askJudgeWithTokens", () => {
  const scoreSchema = z.object({ score: z.number() });
  const tokens = (score: string) => [
    { token: '{"score":', logprob: 0, topLogprobs: [] },
    {
      token: score,
      logprob: -0.3,
      topLogprobs: [
        { token: score, logprob: -0.3 },
        { token: "8", logprob: -1.5 },
      ],
    },
    { token: "}", logprob: 0, topLogprobs: [] },
  ];
  const askScore = (judge: MockJudge, topLogprobs?: number) =>
    askJudgeWithTokens({
      judge,
      transport: createDirectTransport(),
      ledger: new JudgeLedger(),
      step: {
        metric: "GEval",
        step: "evaluate",
        prompt: "Score it.",
        images: [],
        schema: scoreSchema,
        ...(topLogprobs === undefined ? {} : { topLogprobs }),
      },
    });

  it("asks for topLogprobs and returns the value with the answer's logprobs and raw text", async () => {
    const judge = new MockJudge({
      answers: [{ text: '{"score":7.0}', logprobs: tokens("7.0") }],
    });
    expect(await askScore(judge, 20)).toEqual({
      value: { score: 7 },
      logprobs: tokens("7.0"),
      rawText: '{"score":7.0}',
    });
    expect(judge.calls[0]?.topLogprobs).toBe(20);
  });

  it("returns the re-asked answer's tokens when the first answer was refused", async () => {
    const judge = new MockJudge({
      answers: [
        { text: '{"score": "seven"}', logprobs: tokens('"seven"') },
        { text: '{"score":7}', logprobs: tokens("7") },
      ],
    });
    const answer = await askScore(judge, 5);
    expect(answer).toMatchObject({ value: { score: 7 }, rawText: '{"score":7}' });
    expect(answer.logprobs?.[1]?.token).toBe("7");
    expect(judge.calls.map((call) => call.topLogprobs)).toEqual([5, 5]);
  });

  it("gives null logprobs, and asks for none, without topLogprobs", async () => {
    const judge = new MockJudge({ answers: [{ score: 7 }] });
    expect(await askScore(judge)).toEqual({
      value: { score: 7 },
      logprobs: null,
      rawText: '{"score":7}',
    });
    expect(judge.calls[0]?.topLogprobs).toBeNull();
  });

  it.each([0, 21, 2.5, Number.NaN])(
    "refuses topLogprobs %s before any call",
    async (topLogprobs) => {
      const judge = new MockJudge({ answers: [{ score: 7 }] });
      const error = await askScore(judge, topLogprobs).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(
        /Step "evaluate" of metric "GEval" asks for topLogprobs .*: give a whole number from 1 to 20/,
      );
      expect(judge.calls).toHaveLength(0);
    },
  );
});
