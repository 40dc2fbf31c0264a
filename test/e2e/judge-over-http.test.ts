// The real wire path: verdict's metrics → AI SDK OpenAI provider → HTTP → the fake server.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { JudgeCallError } from "../../src/errors/judge-call-error.ts";
import { JudgeOutputError } from "../../src/errors/judge-output-error.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import { image, mm } from "../../src/test-case/image.ts";
import {
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { pngWith } from "../fixtures/images.ts";

const SECRET = "sk-test-SECRET-1234567890abcdef";
let server: FakeOpenAIServer;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: SECRET };
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setResponder(undefined);
});

const sarah = {
  name: "sarah",
  input: "How is Sarah as a person?",
  actualOutput: "Sarah always meant well, but you couldn't help but sigh when she volunteered.",
};

/** Answers each step from what its JSON schema asks for. */
function stepOf(request: FakeOpenAIRequest): string {
  const properties = (request.jsonSchema?.properties ?? {}) as Record<string, unknown>;
  return Object.keys(properties)[0] ?? "";
}

describe("metrics over HTTP with the real AI SDK OpenAI provider", () => {
  it("scores through the Responses API with schema-constrained output", async () => {
    server.setResponder((request) => {
      switch (stepOf(request)) {
        case "opinions":
          return reply.json({ opinions: ["Sarah meant well.", "Her volunteering is a burden."] });
        case "verdicts":
          return reply.json({
            verdicts: [
              { verdict: "no", reason: null },
              { verdict: "yes", reason: "Belittles Sarah." },
            ],
          });
        default:
          return reply.json({ reason: "The score is 0.50 because it belittles Sarah." });
      }
    });
    const metric = new ToxicityMetric({ model: "gpt-4.1" });
    expect(await metric.measure(sarah, { env })).toBe(0.5);
    expect(metric.reason).toBe("The score is 0.50 because it belittles Sarah.");
    expect(metric.evaluationModel).toBe("openai:gpt-4.1");
    expect(server.requests.map((request) => request.endpoint)).toEqual([
      "responses",
      "responses",
      "responses",
    ]);
    expect(server.requests[0]?.responseFormat).toBe("json_schema");
    expect(server.requests[1]?.jsonSchema).toMatchObject({
      properties: { verdicts: { minItems: 2, maxItems: 2 } },
    });
    expect(server.requests[0]?.temperature).toBe(0);
    // Tokens come from the provider's usage; gpt-4.1 has a price, so the cost is known.
    expect(metric.inputTokens).toBeGreaterThan(0);
    expect(metric.evaluationCost).toBeGreaterThan(0);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer ***");
  });

  it("retries a 429 with Retry-After and then succeeds", async () => {
    server.enqueue(reply.rateLimit({ retryAfterSeconds: 1 }), reply.json({ opinions: [] }));
    const metric = new BiasMetric({ model: "gpt-4.1" });
    expect(await metric.measure(sarah, { env })).toBe(0);
    expect(server.stats().byStatus).toMatchObject({ "429": 1, "200": 1 });
    expect(metric.judgeCalls).toBe(1);
  });

  it("repairs bad JSON without asking again", async () => {
    server.enqueue(
      reply.text('Here:\n```json\n{"opinions": ["Sarah is tiresome.",],}\n```'),
      reply.json({ verdicts: [{ verdict: "No." }] }),
    );
    const metric = new ToxicityMetric({ model: "gpt-4.1" });
    expect(await metric.measure(sarah, { env })).toBe(0);
    expect(server.requests).toHaveLength(2);
  });

  it("re-asks once with the problem quoted, and succeeds", async () => {
    server.enqueue(
      reply.text("I would rather not answer in JSON."),
      reply.json({ statements: [] }),
    );
    const metric = new AnswerRelevancyMetric({ model: "gpt-4.1" });
    expect(await metric.measure(sarah, { env })).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.prompt).toContain("Problem: no JSON object found in the answer");
  });

  it("fails a second bad answer with a readable JudgeOutputError", async () => {
    server.enqueue(reply.text("nope"), reply.text("still nope"));
    const metric = new ToxicityMetric({ model: "gpt-4.1" });
    const error = await metric.measure(sarah, { env }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeOutputError);
    const outputError = error as JudgeOutputError;
    expect(outputError.rawText).toBe("still nope");
    expect(outputError.message).toBe(
      'Metric "Toxicity", step "generateOpinions": the judge\'s answer was not valid (no JSON object found in the answer), even after one re-ask. Use a judge model that follows JSON instructions (one with structured output), or pass a custom evaluationTemplate. Raw answer: "still nope"',
    );
    expect(metric.error).toBe(outputError.message);
  });

  it("does not retry an exhausted quota and says what to do", async () => {
    server.enqueue(reply.quotaExceeded());
    const error = await new ToxicityMetric({ model: "gpt-4.1" })
      .measure(sarah, { env })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeCallError);
    expect((error as JudgeCallError).retryable).toBe(false);
    expect((error as JudgeCallError).quotaExhausted).toBe(true);
    expect((error as Error).message).toMatch(/billing/i);
    expect(server.stats().requests).toBe(1);
  });

  it("does not retry a bad key; the message names the variable, never the key", async () => {
    server.enqueue(reply.unauthorized());
    const error = await new ToxicityMetric({ model: "gpt-4.1" })
      .measure(sarah, { env })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeCallError);
    expect((error as JudgeCallError).status).toBe(401);
    expect((error as Error).message).toContain("OPENAI_API_KEY");
    expect((error as Error).message).not.toContain(SECRET);
    expect(server.stats().requests).toBe(1);
  });

  it("reaches chat completions through an Ollama model string", async () => {
    server.setResponder(() => reply.json({ opinions: [] }));
    const metric = new ToxicityMetric({ model: "ollama:llama3.1" });
    await metric.measure(sarah, { env: { OLLAMA_BASE_URL: server.url } });
    expect(metric.evaluationModel).toBe("ollama:llama3.1");
    expect(server.requests[0]?.endpoint).toBe("chat.completions");
    expect(server.requests[0]?.model).toBe("llama3.1");
    expect(metric.evaluationCost).toBeNull();
  });

  it("sends an image in the input as an image part", async () => {
    server.setResponder((request) =>
      stepOf(request) === "statements"
        ? reply.json({ statements: ["This is the Eiffel Tower."] })
        : reply.json({ verdicts: [{ verdict: "yes", reason: null }] }),
    );
    const png = pngWith(1, 2, 3, 4);
    const metric = new AnswerRelevancyMetric({ model: "gpt-4.1" });
    await metric.measure(
      {
        input: mm`Tell me about this landmark in France: ${image(png)}`,
        actualOutput: "This appears to be the Eiffel Tower.",
      },
      { env },
    );
    expect(server.requests[0]?.images).toEqual([]);
    expect(server.requests[1]?.images).toEqual([
      `data:image/png;base64,${Buffer.from(png).toString("base64")}`,
    ]);
  });
});

describe("images from every kind of source reach the judge as image parts", () => {
  it("sends a file, a URL and a data: URL, in input and actualOutput", async () => {
    const png = pngWith(9, 9, 9, 9);
    const folder = mkdtempSync(join(tmpdir(), "verdict-images-"));
    const file = join(folder, "tower.png");
    writeFileSync(file, png);
    try {
      server.setResponder((request) =>
        stepOf(request) === "statements"
          ? reply.json({ statements: ["The picture shows a tower."] })
          : reply.json({ verdicts: [{ verdict: "yes", reason: null }] }),
      );
      const dataUrl = `data:image/png;base64,${Buffer.from(png).toString("base64")}`;
      const metric = new AnswerRelevancyMetric({ model: "gpt-4.1" });
      await metric.measure(
        {
          input: mm`Compare ${image("https://example.com/eiffel.jpg")} with ${image(dataUrl)}`,
          actualOutput: mm`Here is a similar tower: ${image(file)}`,
        },
        { env },
      );
      const fileAsDataUrl = `data:image/png;base64,${Buffer.from(png).toString("base64")}`;
      // Step 1 judges the output (its image); step 2 the input's images against the statements.
      expect(server.requests[0]?.images).toEqual([fileAsDataUrl]);
      expect(server.requests[0]?.prompt).toContain("Here is a similar tower: [image 1]");
      expect(server.requests[1]?.images).toEqual(["https://example.com/eiffel.jpg", dataUrl]);
      expect(server.requests[1]?.prompt).toContain("Compare [image 1] with [image 2]");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("judge calls per metric per test case", () => {
  const answersFor =
    (options: { opinions: string[]; toxic: boolean }) => (request: FakeOpenAIRequest) => {
      switch (stepOf(request)) {
        case "opinions":
          return reply.json({ opinions: options.opinions });
        case "verdicts":
          return reply.json({
            verdicts: options.opinions.map((_, index) => ({
              verdict: options.toxic && index === 0 ? "yes" : "no",
              reason: "r",
            })),
          });
        default:
          return reply.json({ reason: "The score is 0.50 because r." });
      }
    };

  it.each([
    ["something to explain", { opinions: ["a", "b"], toxic: true }, true, 3],
    ["nothing to explain", { opinions: ["a", "b"], toxic: false }, true, 2],
    ["nothing extracted, no reason", { opinions: [], toxic: false }, false, 1],
  ])("%s: %#", async (_label, script, includeReason, expectedCalls) => {
    server.setResponder(answersFor(script));
    const metric = new ToxicityMetric({ model: "gpt-4.1", includeReason });
    await metric.measure(sarah, { env });
    expect(metric.judgeCalls).toBe(expectedCalls);
    expect(server.stats().requests).toBe(expectedCalls);
  });
});
