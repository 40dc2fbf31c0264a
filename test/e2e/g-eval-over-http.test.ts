// G-Eval on the real wire path: GEval → AI SDK OpenAI provider → HTTP → the fake server, with
// token log-probabilities asked for and read back from both OpenAI APIs.
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { createJudge } from "../../src/judge/ai-sdk-judge.ts";
import { GEval } from "../../src/metrics/g-eval/g-eval-metric.ts";
import { MemoryRunStore } from "../../src/store/memory-run-store.ts";
import {
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setResponder(undefined);
});

const L = Math.log;
const testCase = {
  input: "I bought shoes 40 days ago, can I get my money back?",
  actualOutput: "After 30 days we offer store credit rather than a refund.",
};

function firstProperty(request: FakeOpenAIRequest): string {
  return Object.keys((request.jsonSchema?.properties ?? {}) as Record<string, unknown>)[0] ?? "";
}

const apis = [
  {
    name: "Responses API",
    model: (url: string) => createOpenAI({ baseURL: url, apiKey: "sk-test" })("gpt-4.1"),
  },
  {
    name: "Chat Completions",
    model: (url: string) => createOpenAI({ baseURL: url, apiKey: "sk-test" }).chat("gpt-4.1"),
  },
];

describe.each(apis)("GEval over HTTP: $name", ({ model }) => {
  it("weights the score by the judge's candidates for the score token", async () => {
    server.setResponder((request) =>
      firstProperty(request) === "steps"
        ? reply.json({ steps: ["Find the policy's rule.", "Compare the answer with it."] })
        : reply.json(
            { reason: "It applies the 30-day rule.", score: 7 },
            {
              logprobs: {
                "7": [
                  { token: "7", logprob: L(0.6) },
                  { token: "8", logprob: L(0.3) },
                  { token: "6", logprob: L(0.1) },
                ],
              },
            },
          ),
    );
    const metric = new GEval({
      name: "Refund policy",
      criteria: "Does the answer follow the 30-day refund policy?",
      model: createJudge({ model: model(server.url) }),
    });
    // deepeval: (7·0.6 + 8·0.3 + 6·0.1) / 1.0 = 7.2 → 0.72
    expect(await metric.measure(testCase)).toBeCloseTo(0.72, 12);
    expect(metric.details?.judgeScore).toMatchObject({
      score: 7,
      weightedScore: expect.closeTo(7.2, 12),
    });
    const scoring = server.requests.find((request) => firstProperty(request) === "reason");
    expect(JSON.stringify(scoring?.body)).toMatch(/"top_logprobs":20/);
    const steps = server.requests.find((request) => firstProperty(request) === "steps");
    expect(JSON.stringify(steps?.body)).not.toMatch(/logprobs/);
  });

  it("falls back to the whole score when the judge gives no candidates under the score", async () => {
    server.setResponder((request) =>
      firstProperty(request) === "reason"
        ? reply.json(
            { reason: "Mostly right.", score: 6 },
            { logprobs: { "6": [{ token: "six", logprob: L(0.9) }] } },
          )
        : reply.json({ steps: ["Judge it."] }),
    );
    const metric = new GEval({
      name: "P",
      evaluationSteps: ["Judge it."],
      model: createJudge({ model: model(server.url) }),
    });
    expect(await metric.measure(testCase)).toBeCloseTo(0.6, 12);
  });

  it("a cache hit scores exactly like the paid call: the log-probabilities are kept", async () => {
    server.setResponder(() =>
      reply.json(
        { reason: "Fine.", score: 9 },
        {
          logprobs: {
            "9": [
              { token: "9", logprob: L(0.5) },
              { token: "10", logprob: L(0.5) },
            ],
          },
        },
      ),
    );
    const store = new MemoryRunStore();
    const run = async () => {
      const metric = new GEval({
        name: "P",
        evaluationSteps: ["Judge it."],
        model: createJudge({ model: model(server.url) }),
      });
      const result = await evaluate({
        testCases: [testCase],
        metrics: [metric],
        store,
        display: "none",
        handleInterrupt: false,
      });
      return result.testResults[0]?.metricsData[0];
    };
    const paid = await run();
    const cached = await run();
    expect(paid?.score).toBeCloseTo(0.95, 12);
    expect(cached?.score).toBe(paid?.score);
    expect(cached?.cachedJudgeCalls).toBe(1);
    expect(server.requests).toHaveLength(1);
  });
});
