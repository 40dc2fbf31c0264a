import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../testing/fake-openai-server.ts";
import { createJudge } from "./ai-sdk-judge.ts";
import type { JudgeBatchApi, JudgeBatchState, JudgeRequest } from "./judge-model.ts";
import { toStrictJsonSchema } from "./strict-json-schema.ts";
import { costOfUsage, findModelPrice } from "./usage-and-cost.ts";

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const opinionsSchema = z.object({ opinions: z.array(z.string()) });
const request = (prompt: string): JudgeRequest => ({
  prompt,
  schema: opinionsSchema,
  jsonSchema: toStrictJsonSchema(opinionsSchema),
});
const openai = () => createOpenAI({ baseURL: server.url, apiKey: "sk-batch-test" });

async function untilEnded(api: JudgeBatchApi, started: JudgeBatchState): Promise<JudgeBatchState> {
  let state = started;
  while (state.phase === "pending") state = await api.status({ batchId: started.batchId });
  return state;
}

describe("AiSdkJudge.batch", () => {
  it("is there for OpenAI and Anthropic models, and null for providers without batches", () => {
    const key = { apiKey: "k" };
    expect(createJudge({ model: openai()("gpt-4.1") }).batch?.provider).toBe("openai.batch");
    expect(createJudge({ model: openai().chat("gpt-4.1") }).batch?.provider).toBe("openai.batch");
    expect(createJudge({ model: createAnthropic(key)("claude-sonnet-4-5") }).batch?.provider).toBe(
      "anthropic.batch",
    );
    expect(
      createJudge({ model: createGoogleGenerativeAI(key)("gemini-2.5-flash") }).batch,
    ).toBeNull();
    const ollama = createOpenAI({ baseURL: server.url, apiKey: "ollama", name: "ollama" });
    expect(createJudge({ model: ollama.chat("llama3.1") }).batch).toBeNull();
  });

  it("answers lines with the model's text, usage, finish reason and the cost at half the price", async () => {
    const judge = createJudge({ model: openai()("gpt-4.1") });
    const api = judge.batch as JudgeBatchApi;
    server.setResponder((fake) =>
      fake.prompt === "cut"
        ? reply.text('{"opinions": ["half', { finishReason: "length" })
        : fake.prompt === "broken"
          ? reply.serverError(502)
          : reply.json({ opinions: ["kind"] }),
    );
    const started = await api.start({
      lines: [
        { id: "ok", request: request("fine") },
        { id: "cut", request: request("cut") },
        { id: "broken", request: request("broken") },
      ],
    });
    expect(started).toMatchObject({ phase: "pending", providerStatus: "validating" });
    const ended = await untilEnded(api, started);
    expect(ended).toMatchObject({
      providerStatus: "completed",
      counts: { total: 3, completed: 2, failed: 1 },
    });
    const results = await api.results({ batchId: started.batchId });
    const byId = Object.fromEntries(results.map((result) => [result.id, result]));
    const ok = byId.ok;
    if (ok?.status !== "answered") throw new Error("the line was not answered");
    expect(ok.answer).toMatchObject({ text: '{"opinions":["kind"]}', finishReason: "stop" });
    const full = costOfUsage({
      usage: ok.answer.usage,
      price: findModelPrice({ modelId: "gpt-4.1" }),
    });
    expect(ok.answer.costUsd).toBeCloseTo((full ?? Number.NaN) / 2, 15);
    expect(byId.cut).toMatchObject({ status: "answered", answer: { finishReason: "length" } });
    expect(byId.broken).toMatchObject({ status: "failed", error: { statusCode: 502 } });
  });

  it("sends the Responses body a direct call sends, from a chat model too", async () => {
    const judge = createJudge({ model: openai().chat("gpt-4.1") });
    await judge.batch?.start({ lines: [{ id: "a", request: request("Judge this.") }] });
    await judge.batch?.status({ batchId: server.batches()[0]?.id ?? "" });
    expect(server.batches()[0]?.endpoint).toBe("/v1/responses");
    expect(server.requests[0]).toMatchObject({
      endpoint: "responses",
      model: "gpt-4.1",
      prompt: "Judge this.",
      responseFormat: "json_schema",
      jsonSchema: toStrictJsonSchema(opinionsSchema),
      temperature: 0,
    });
  });

  it("asks for token logprobs in the lines that want them, and reads them from the results", async () => {
    const judge = createJudge({ model: openai().chat("gpt-4.1") });
    const api = judge.batch as JudgeBatchApi;
    const candidates = [
      { token: "kind", logprob: -0.2 },
      { token: "rude", logprob: -1.8 },
    ];
    server.setResponder(() =>
      reply.json({ opinions: ["kind"] }, { logprobs: { kind: candidates } }),
    );
    const started = await api.start({
      lines: [
        { id: "asks", request: { ...request("with tokens"), topLogprobs: 2 } },
        { id: "plain", request: request("without") },
      ],
    });
    await untilEnded(api, started);
    const byPrompt = Object.fromEntries(server.requests.map((line) => [line.prompt, line]));
    expect(byPrompt["with tokens"]?.topLogprobs).toBe(2);
    expect(byPrompt["with tokens"]?.body).toMatchObject({
      top_logprobs: 2,
      include: ["message.output_text.logprobs"],
    });
    expect(byPrompt.without?.topLogprobs).toBeUndefined();
    expect(byPrompt.without?.body).not.toHaveProperty("top_logprobs");
    const results = await api.results({ batchId: started.batchId });
    const byId = Object.fromEntries(results.map((result) => [result.id, result]));
    const asks = byId.asks;
    if (asks?.status !== "answered") throw new Error("the line was not answered");
    expect(asks.answer.logprobs?.map((token) => token.token).join("")).toBe(asks.answer.text);
    expect(asks.answer.logprobs?.find((token) => token.token === "kind")).toEqual({
      token: "kind",
      logprob: -0.2,
      topLogprobs: candidates,
    });
    expect(byId.plain).toMatchObject({ status: "answered" });
    expect(byId.plain?.status === "answered" && byId.plain.answer).not.toHaveProperty("logprobs");
  });

  it("asks for JSON the way the judge learnt to: JSON mode after a schema rejection", async () => {
    const judge = createJudge({ model: openai()("gpt-4.1") });
    server.enqueue(
      reply.error(400, {
        message:
          "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      }),
    );
    await judge.generate(request("direct first"));
    expect(judge.structuredOutputMode).toBe("json");
    server.reset();
    const started = await (judge.batch as JudgeBatchApi).start({
      lines: [{ id: "a", request: request("then batched") }],
    });
    await (judge.batch as JudgeBatchApi).status({ batchId: started.batchId });
    expect(server.requests[0]).toMatchObject({
      prompt: "then batched",
      responseFormat: "json_object",
    });
  });

  it("leaves the schema to the prompt for Anthropic models without native structured output, in batches only", async () => {
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "sk-ant-batch-test" });
    const judge = createJudge({ model: anthropic("claude-3-5-haiku") });
    const api = judge.batch as JudgeBatchApi;
    const started = await api.start({ lines: [{ id: "a", request: request("Judge this.") }] });
    await api.status({ batchId: started.batchId });
    expect(server.requests[0]).toMatchObject({
      endpoint: "messages",
      model: "claude-3-5-haiku",
      responseFormat: "text",
      batchId: started.batchId,
    });
    // Direct calls still use the JSON tool, which batches cannot carry.
    expect(judge.structuredOutputMode).toBe("json-schema");
    server.reset();
    await judge.generate(request("Directly."));
    expect(server.requests[0]).toMatchObject({ responseFormat: "tool", toolName: "json" });
  });
});
