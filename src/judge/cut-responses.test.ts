// A failure after an HTTP 200 (issue 19, item 3): an answer cut short after its headers, or a
// body that is not the provider's JSON, is retried like a 5xx, over real HTTP through the AI
// SDK's OpenAI provider (Responses and Chat Completions), and a failure that never stops says
// what happened rather than blaming the model name.
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import {
  type FakeOpenAIServer,
  type FakeReply,
  reply,
  startFakeOpenAIServer,
} from "../testing/fake-openai-server.ts";
import { createJudge } from "./ai-sdk-judge.ts";
import { createDirectTransport } from "./direct-transport.ts";
import type { JudgeRequest } from "./judge-model.ts";
import type { Sleep } from "./with-retries.ts";

const schema = z.object({ opinions: z.array(z.string()) });
const request: JudgeRequest = {
  prompt: "List the opinions.",
  schema,
  jsonSchema: z.toJSONSchema(schema),
};
const meta = { metric: "Toxicity", step: "generateOpinions", trial: 0 };

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

const endpoints = [
  {
    name: "openai(…) over /v1/responses",
    model: () => createOpenAI({ baseURL: server.url, apiKey: "sk-test" })("gpt-4.1"),
  },
  {
    name: "openai.chat(…) over /v1/chat/completions",
    model: () => createOpenAI({ baseURL: server.url, apiKey: "sk-test" }).chat("gpt-4.1"),
  },
];

const broken: Array<[string, FakeReply]> = [
  ["cut right after its headers", reply.cut()],
  ["cut in the middle of its body", reply.cut({ afterBytes: 40 })],
  ["an HTML page from a proxy", reply.notJson()],
  ["an empty body", reply.notJson({ body: "", contentType: "application/json" })],
  [
    "JSON that is not the provider's answer",
    reply.notJson({ body: '{"status":"ok"}', contentType: "application/json" }),
  ],
];

/** A transport whose waits are recorded, not waited. */
function transport(retry: { maxAttempts?: number } = {}) {
  const delays: number[] = [];
  const sleep: Sleep = async ({ delayMs }) => {
    delays.push(delayMs);
  };
  return { delays, send: createDirectTransport({ sleep, random: () => 0, retry }).send };
}

describe.each(endpoints)("a judge on $name", ({ model }) => {
  it.each(broken)(
    "retries a 200 %s like a 5xx, and returns the next answer",
    async (_what, fault) => {
      server.enqueue(fault, fault);
      const { delays, send } = transport();
      const response = await send(createJudge({ model: model() }), request, meta);
      expect(JSON.parse(response.text ?? "")).toEqual({ opinions: [expect.any(String)] });
      expect(server.stats().requests).toBe(3);
      // The backoff of a hard failure: 500 ms doubling, half of it without jitter.
      expect(delays).toEqual([250, 500]);
    },
  );

  it("gives up on answers that are always cut, saying so, not to check the model name", async () => {
    server.setResponder(() => reply.cut());
    const { delays, send } = transport({ maxAttempts: 3 });
    const error = await send(createJudge({ model: model() }), request, meta).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(JudgeCallError);
    const { message, retryable, kind } = error as JudgeCallError;
    expect({ retryable, kind }).toEqual({ retryable: true, kind: "transient" });
    expect(message).toMatch(/^Judge "openai:gpt-4\.1": the response was cut short \(HTTP 200/);
    expect(message).toMatch(/Gave up after 3 attempts\.$/);
    expect(message).not.toMatch(/model name|Retrying will not help/);
    expect(server.stats().requests).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it("gives up on answers that are never the provider's JSON, saying the response could not be read", async () => {
    server.setResponder(() => reply.notJson());
    const { send } = transport({ maxAttempts: 2 });
    const error = await send(createJudge({ model: model() }), request, meta).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(JudgeCallError);
    const { message } = error as JudgeCallError;
    expect(message).toMatch(/the response could not be read \(HTTP 200, but the body is not/);
    expect(message).toMatch(/base URL/);
    expect(message).not.toMatch(/model name|Retrying will not help/);
    expect(server.stats().requests).toBe(2);
  });
});
