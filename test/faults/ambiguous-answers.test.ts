// Fault injection: an answer that holds two or more differing JSON answers of the step's
// shape is never scored from one of them. Seeded (the bench uses the same generator):
// 1,000 ambiguous answers per metric are re-asked once, then reported; the control of one
// answer wrapped in prose, fences or thinking tags (or repeated identically) always scores.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import {
  AMBIGUOUS_ARRANGEMENTS,
  CONTROL_LAYOUTS,
  generateAmbiguousAnswers,
  unambiguousAnswer,
} from "../fixtures/ambiguous-answers.ts";
import {
  faultyMockJudge,
  METRIC_SHAPES,
  runMetric,
  STEPS,
  seededRandom,
  stepOfKind,
  stepsOf,
  wellFormedAnswer,
  wellFormedCalls,
} from "../fixtures/malformed-answers.ts";
import { runAnswering, runOverHttp, runRecovering } from "../fixtures/step-answer-runs.ts";

describe.each(METRIC_SHAPES)("$name: ambiguous answers through MockJudge", (shape) => {
  it("re-asks each of 1,000 seeded ambiguous answers once, then reports how many answers it held", async () => {
    const answers = generateAmbiguousAnswers({ seed: 19, count: 1000 });
    expect(new Set(answers.map((answer) => answer.step))).toEqual(new Set(STEPS));
    const wrong: string[] = [];
    for (const answer of answers) {
      if (!stepsOf(shape).includes(answer.step)) continue;
      const rendered = answer.render(shape);
      const judge = faultyMockJudge({ shape, step: answer.step, answers: [rendered] });
      const { outcome } = await runMetric(shape, judge);
      const stepCalls = judge.calls.filter((call) => stepOfKind(shape, call.kind) === answer.step);
      const label = `#${answer.id} ${answer.variant} at ${answer.step}: ${rendered.text}`;
      if (outcome.kind !== "judge-output-error") {
        wrong.push(`${label} → ${outcome.kind}`);
        continue;
      }
      expect(outcome.error.message, label).toContain(
        `the answer held ${answer.differing} differing answers`,
      );
      expect(outcome.error.rawText, label).toBe(rendered.text);
      expect(stepCalls, label).toHaveLength(2);
      expect(stepCalls[1]?.prompt, label).toContain(
        `Problem: the answer held ${answer.differing} differing answers`,
      );
    }
    expect(wrong).toEqual([]);
  });

  it("scores from the re-ask when only the first answer was ambiguous", async () => {
    const answers = generateAmbiguousAnswers({
      seed: 23,
      count: AMBIGUOUS_ARRANGEMENTS.length * 3,
    });
    for (const answer of answers) {
      if (!stepsOf(shape).includes(answer.step)) continue;
      const { outcome, calls } = await runRecovering(shape, answer.step, answer.render(shape));
      expect(outcome, `${answer.variant} at ${answer.step}`).toEqual({
        kind: "scored",
        score: shape.score,
      });
      expect(calls).toBe(wellFormedCalls(shape) + 1);
    }
  });

  it("scores one answer wrapped in prose, fences or thinking tags, or repeated identically, without a re-ask", async () => {
    const random = seededRandom(31);
    for (let run = 0; run < 20 * CONTROL_LAYOUTS; run++) {
      const { metric, outcome, texts, calls } = await runAnswering(shape, (step) =>
        unambiguousAnswer(random, shape, step),
      );
      expect(outcome, JSON.stringify(texts)).toEqual({ kind: "scored", score: shape.score });
      expect(calls).toBe(wellFormedCalls(shape));
      expect(metric?.reason).toBe(wellFormedAnswer(shape, "reason").reason);
    }
  });
});

describe("ambiguous answers over HTTP (real AI SDK provider, fake server)", () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(METRIC_SHAPES)(
    "$name: a sample of every layout is re-asked once, then reported, never scored",
    async (shape) => {
      const answers = generateAmbiguousAnswers({ seed: 41, count: AMBIGUOUS_ARRANGEMENTS.length });
      for (const answer of answers) {
        if (!stepsOf(shape).includes(answer.step)) continue;
        const { outcome, stepRequests } = await runOverHttp(
          server,
          shape,
          answer.step,
          answer.render(shape),
        );
        const label = `${answer.variant} at ${answer.step}`;
        expect(outcome.kind, label).toBe("judge-output-error");
        expect(String((outcome as { error: unknown }).error), label).toContain(
          `the answer held ${answer.differing} differing answers`,
        );
        expect(stepRequests, label).toBe(2);
      }
    },
  );
});
