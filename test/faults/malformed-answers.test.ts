// Fault injection: malformed judge answers never become scores. Seeded, so every run sees
// the same answers; MockJudge for the many, the fake server (real AI SDK provider over HTTP)
// for a sample.
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/ai-sdk-judge.ts";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { MockJudge } from "../../src/testing/mock-judge.ts";
import {
  everyCutPoint,
  faultTestCase,
  faultyMockJudge,
  faultyResponder,
  generateMalformedAnswers,
  type JudgeAnswer,
  kindOfRequest,
  MALFORMED_FAMILIES,
  METRIC_SHAPES,
  type MetricShape,
  otherStepAnswer,
  runMetric,
  type StepName,
  seededRandom,
  stepName,
  stepOfKind,
  stepOfRequest,
  stepsOf,
  wellFormedAnswer,
  wellFormedCalls,
  wrappedAnswer,
} from "../fixtures/malformed-answers.ts";
import { runAnswering, runRecovering } from "../fixtures/step-answer-runs.ts";

/** Runs a metric whose judge gives `answer` at `step` every time it is asked there. */
async function runGarbage(shape: MetricShape, step: StepName, answer: JudgeAnswer) {
  const judge = faultyMockJudge({ shape, step, answers: [answer] });
  const { metric, outcome } = await runMetric(shape, judge);
  const stepCalls = judge.calls.filter((call) => stepOfKind(shape, call.kind) === step).length;
  return { judge, metric, outcome, stepCalls };
}

describe.each(METRIC_SHAPES)("$name: malformed answers through MockJudge", (shape) => {
  it("re-asks an answer truncated at every cut point of every step once, then reports it", async () => {
    const cuts = everyCutPoint(shape);
    expect(cuts.length).toBeGreaterThan(150);
    for (const { step, text } of cuts) {
      const { outcome, stepCalls } = await runGarbage(shape, step, { text });
      expect(outcome.kind, `${step} cut to ${JSON.stringify(text)}`).toBe("judge-output-error");
      expect(stepCalls).toBe(2);
      if (outcome.kind === "judge-output-error") {
        expect(outcome.error).toMatchObject({
          metric: shape.name,
          step: stepName(shape, step),
          rawText: text,
        });
      }
    }
  });

  it("turns 1,000 seeded malformed answers into 0 scores and 0 crashes", async () => {
    const answers = generateMalformedAnswers({ seed: 9, count: 1000 });
    const scored: string[] = [];
    const crashed: string[] = [];
    for (const answer of answers) {
      if (!stepsOf(shape).includes(answer.step)) continue;
      const rendered = answer.render(shape);
      const { outcome, stepCalls } = await runGarbage(shape, answer.step, rendered);
      const label = `#${answer.id} ${answer.family} at ${answer.step}: ${JSON.stringify(rendered.text.slice(0, 80))}`;
      if (outcome.kind === "scored") scored.push(label);
      if (outcome.kind === "crash") crashed.push(`${label}: ${String(outcome.error)}`);
      if (outcome.kind === "judge-output-error") {
        expect(outcome.error.step).toBe(stepName(shape, answer.step));
        expect(stepCalls, label).toBe(2);
      }
    }
    expect(crashed).toEqual([]);
    expect(scored).toEqual([]);
  });

  it("scores from the re-ask when only the first answer was malformed", async () => {
    const answers = generateMalformedAnswers({ seed: 19, count: 2 * MALFORMED_FAMILIES.length });
    for (const answer of answers) {
      if (!stepsOf(shape).includes(answer.step)) continue;
      const { outcome, calls } = await runRecovering(shape, answer.step, answer.render(shape));
      expect(outcome, `${answer.family} at ${answer.step}`).toEqual({
        kind: "scored",
        score: shape.score,
      });
      expect(calls).toBe(wellFormedCalls(shape) + 1);
    }
  });

  it("scores every well-formed answer wrapped in formatting, without a re-ask", async () => {
    const random = seededRandom(29);
    for (let run = 0; run < 300; run++) {
      const { metric, outcome, texts, calls } = await runAnswering(shape, (step) =>
        wrappedAnswer(random, shape, step),
      );
      expect(outcome, JSON.stringify(texts)).toEqual({ kind: "scored", score: shape.score });
      expect(calls).toBe(wellFormedCalls(shape));
      expect(metric?.reason).toBe(wellFormedAnswer(shape, "reason").reason);
    }
  });
});

// Steps beyond extract → verdicts → reason (truths, questions, answers): each filled with the
// garbage of the list-of-strings extract step, rendered with the step's own key.
describe.each(METRIC_SHAPES.filter((shape) => shape.otherSteps !== undefined))(
  "$name: malformed answers at its other steps",
  (shape) => {
    it.each(Object.entries(shape.otherSteps ?? {}))(
      "%s: 300 seeded malformed answers (the answers of every step) give 0 scores and 0 crashes, each ask re-asked once",
      async (kind, other) => {
        const asShape: MetricShape = { ...shape, extractKey: kind, otherSteps: {} };
        const answers = generateMalformedAnswers({ seed: 59, count: 330 }).filter(
          (answer) => answer.family !== "ambiguous verdict",
        );
        const wrong: string[] = [];
        for (const answer of answers) {
          const rendered = answer.render(asShape);
          const judge = new MockJudge({
            answers: (call) => {
              if (call.kind === kind) {
                return rendered.finishReason === undefined
                  ? { text: rendered.text }
                  : { text: rendered.text, finishReason: rendered.finishReason };
              }
              const callStep = stepOfKind(shape, call.kind);
              return {
                text: JSON.stringify(
                  callStep === null
                    ? otherStepAnswer(shape, call.kind)
                    : wellFormedAnswer(shape, callStep),
                ),
              };
            },
          });
          const { outcome } = await runMetric(shape, judge);
          const asked = judge.calls.filter((call) => call.kind === kind).length;
          const label = `#${answer.id} ${answer.family} at ${kind}: ${JSON.stringify(rendered.text.slice(0, 80))}`;
          if (outcome.kind !== "judge-output-error") wrong.push(`${label} → ${outcome.kind}`);
          else if (asked !== 2 * (other.asks ?? 1)) wrong.push(`${label}: asked ${asked} times`);
        }
        expect(wrong).toEqual([]);
      },
    );
  },
);

describe("malformed answers over HTTP (real AI SDK provider, fake server)", () => {
  let server: FakeOpenAIServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    server = await startFakeOpenAIServer();
    env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-faults" };
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    server.setResponder(undefined);
  });

  /** Serves `answer` at `step` (every time) and well-formed answers elsewhere. */
  function serve(shape: MetricShape, step: StepName, answer: JudgeAnswer): void {
    server.setResponder(faultyResponder({ shape, step, answer }));
  }

  it.each(METRIC_SHAPES)(
    "$name: a sample of malformed answers is re-asked once, then reported, never scored",
    async (shape) => {
      const answers = generateMalformedAnswers({ seed: 39, count: 3 * MALFORMED_FAMILIES.length });
      for (const answer of answers) {
        if (!stepsOf(shape).includes(answer.step)) continue;
        server.reset();
        serve(shape, answer.step, answer.render(shape));
        const { outcome } = await runMetric(shape, "gpt-4.1", (metric) =>
          metric.measure(faultTestCase(shape), { env }),
        ).catch((error: unknown) => ({ outcome: { kind: "crash" as const, error } }));
        const label = `${answer.family} at ${answer.step}`;
        expect(outcome.kind, label).toBe("judge-output-error");
        const stepRequests = server.requests.filter(
          (request) => stepOfRequest(shape, request) === answer.step,
        );
        expect(stepRequests, label).toHaveLength(2);
      }
    },
  );

  it("refuses a complete-looking answer the provider cut off (Responses API and Chat Completions)", async () => {
    const shape = METRIC_SHAPES[0] as MetricShape;
    const whole = JSON.stringify(wellFormedAnswer(shape, "reason"));
    serve(shape, "reason", { text: whole, finishReason: "length" });
    const responses = await runMetric(shape, "gpt-4.1", (metric) =>
      metric.measure(faultTestCase(shape), { env }),
    );
    expect(responses.outcome.kind).toBe("judge-output-error");
    expect(String((responses.outcome as { error: unknown }).error)).toContain(
      'finish reason "length"',
    );

    server.reset();
    serve(shape, "reason", { text: whole, finishReason: "content-filter" });
    const provider = createOpenAI({ baseURL: server.url, apiKey: "sk-test-faults" });
    const chat = await runMetric(shape, createJudge({ model: provider.chat("gpt-4.1") }));
    expect(chat.outcome.kind).toBe("judge-output-error");
    expect(String((chat.outcome as { error: unknown }).error)).toContain(
      'finish reason "content-filter"',
    );
    expect(server.requests.every((request) => request.endpoint === "chat.completions")).toBe(true);
  });

  it.each(METRIC_SHAPES)(
    "$name: wrapped well-formed answers still score over HTTP",
    async (shape) => {
      const random = seededRandom(49);
      for (let run = 0; run < 10; run++) {
        server.setResponder((request) => {
          const step = stepOfRequest(shape, request);
          return step === null
            ? reply.json(otherStepAnswer(shape, kindOfRequest(request)))
            : reply.text(wrappedAnswer(random, shape, step));
        });
        const { outcome } = await runMetric(shape, "gpt-4.1", (metric) =>
          metric.measure(faultTestCase(shape), { env }),
        );
        expect(outcome).toEqual({ kind: "scored", score: shape.score });
      }
    },
  );
});
