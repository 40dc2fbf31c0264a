import { createAzure } from "@ai-sdk/azure";
import { createOpenAI } from "@ai-sdk/openai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../testing/fake-openai-server.ts";
import { type AiSdkLanguageModel, createJudge } from "./ai-sdk-judge.ts";
import type { JudgeRequest } from "./judge-model.ts";
import { toStrictJsonSchema } from "./strict-json-schema.ts";

const schema = z.object({ score: z.number(), reason: z.string() });
const SCORE = { score: 7, reason: "Fits most of the steps." };
const CANDIDATES = [
  { token: "7", logprob: -0.3 },
  { token: "8", logprob: -1.5 },
  { token: "6", logprob: -2.5 },
];

function request(topLogprobs?: number): JudgeRequest {
  return {
    prompt: "Score the answer from 0 to 10.",
    schema,
    jsonSchema: toStrictJsonSchema(schema),
    ...(topLogprobs === undefined ? {} : { topLogprobs }),
  };
}

let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

const openai = () => createOpenAI({ baseURL: server.url, apiKey: "sk-test" });
const azure = () => createAzure({ baseURL: server.url, apiKey: "azure-test-key" });

const models: Array<{ name: string; model: () => AiSdkLanguageModel }> = [
  { name: "openai (Responses)", model: () => openai()("gpt-4.1") },
  { name: "openai.chat (Chat Completions)", model: () => openai().chat("gpt-4.1") },
  { name: "azure (Responses)", model: () => azure()("gpt-4.1") },
  { name: "azure.chat (Chat Completions)", model: () => azure().chat("gpt-4.1") },
];

describe.each(models)("AiSdkJudge over the wire: $name", ({ model }) => {
  it("asks for topLogprobs with the strict schema, and gives back the scripted candidates", async () => {
    server.enqueue(reply.json(SCORE, { logprobs: { "7": CANDIDATES } }));
    const judge = createJudge({ model: model() });
    const answer = await judge.generate(request(2));
    expect(answer.text).toBe(JSON.stringify(SCORE));
    expect(answer.logprobs?.map((token) => token.token).join("")).toBe(answer.text);
    expect(answer.logprobs?.find((token) => token.token === "7")).toEqual({
      token: "7",
      logprob: -0.3,
      topLogprobs: [
        { token: "7", logprob: -0.3 },
        { token: "8", logprob: -1.5 },
      ],
    });
    expect(answer.logprobs?.find((token) => token.token === "reason")).toEqual({
      token: "reason",
      logprob: 0,
      topLogprobs: [{ token: "reason", logprob: 0 }],
    });
    const [sent] = server.requests;
    expect(sent).toMatchObject({ responseFormat: "json_schema", topLogprobs: 2 });
    // The strict schema option survives beside logprobs.
    const body = sent?.body as {
      response_format?: { json_schema?: { strict?: boolean } };
      text?: { format?: { strict?: boolean } };
    };
    expect(body.response_format?.json_schema?.strict ?? body.text?.format?.strict).toBe(true);
  });

  it("sends no logprobs parameters, and gives none, when the request does not ask", async () => {
    server.enqueue(reply.json(SCORE, { logprobs: { "7": CANDIDATES } }));
    const answer = await createJudge({ model: model() }).generate(request());
    expect(answer.text).toBe(JSON.stringify(SCORE));
    expect(answer).not.toHaveProperty("logprobs");
    const [sent] = server.requests;
    expect(sent?.topLogprobs).toBeUndefined();
    expect(sent?.body).not.toHaveProperty("logprobs");
    expect(sent?.body).not.toHaveProperty("top_logprobs");
    expect(sent?.body).not.toHaveProperty("include");
  });

  it("asks for them in JSON mode too, after the schema was refused", async () => {
    server.enqueue(
      reply.error(400, { message: "Invalid schema for response_format 'answer'." }),
      reply.text('{"score": 7, "reason": "ok"}', { logprobs: { "7": CANDIDATES } }),
    );
    const judge = createJudge({ model: model() });
    const answer = await judge.generate(request(3));
    expect(judge.structuredOutputMode).toBe("json");
    expect(server.requests[1]).toMatchObject({ responseFormat: "json_object", topLogprobs: 3 });
    expect(answer.logprobs?.find((token) => token.token === "7")?.topLogprobs).toEqual(CANDIDATES);
  });
});

describe("AiSdkJudge without logprobs", () => {
  it.each([
    ["o3-mini", "chat"],
    ["gpt-5-mini", "responses"],
  ] as const)(
    "neither asks %s (%s) for them nor gives any: reasoning models have none",
    async (modelId, api) => {
      server.enqueue(reply.json(SCORE));
      const provider = openai();
      const judge = createJudge({
        model: api === "chat" ? provider.chat(modelId) : provider(modelId),
      });
      const answer = await judge.generate(request(5));
      expect(answer.text).toBe(JSON.stringify(SCORE));
      expect(answer).not.toHaveProperty("logprobs");
      expect(server.requests[0]?.topLogprobs).toBeUndefined();
      expect(server.requests[0]?.body).not.toHaveProperty("top_logprobs");
    },
  );

  it("ignores topLogprobs for another provider", async () => {
    const model = new MockLanguageModelV4({
      provider: "anthropic.messages",
      modelId: "claude-sonnet-4-5",
      doGenerate: async () => ({
        content: [{ type: "text", text: JSON.stringify(SCORE) }],
        finishReason: { unified: "stop", raw: "end_turn" },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 5, text: 5, reasoning: 0 },
        },
        // Even if a provider said something under openai, it was not asked for.
        providerMetadata: { openai: { logprobs: [{ token: "7", logprob: 0, top_logprobs: [] }] } },
        warnings: [],
      }),
    });
    const answer = await createJudge({ model }).generate(request(5));
    expect(answer).not.toHaveProperty("logprobs");
    const options = model.doGenerateCalls[0]?.providerOptions as {
      openai?: Record<string, unknown>;
    };
    expect(options.openai).not.toHaveProperty("logprobs");
  });
});
