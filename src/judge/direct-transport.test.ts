import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PNG_BYTES } from "../../test/fixtures/images.ts";
import { ConfigError } from "../errors/config-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { image } from "../test-case/image.ts";
import { createJudge } from "./ai-sdk-judge.ts";
import { createDirectTransport, type JudgeRetryInfo } from "./direct-transport.ts";
import type { JudgeModel, JudgeRequest } from "./judge-model.ts";
import type { Sleep } from "./with-retries.ts";

const schema = z.object({ opinions: z.array(z.string()) });
const request: JudgeRequest = {
  prompt: 'List the opinions as JSON: {"opinions": [...]}',
  schema,
  jsonSchema: z.toJSONSchema(schema),
};
const meta = { metric: "Toxicity", step: "generateOpinions", trial: 0 };
const png = PNG_BYTES;

function fastSleep() {
  const delays: number[] = [];
  const sleep: Sleep = async ({ delayMs }) => {
    delays.push(delayMs);
  };
  return { delays, sleep };
}

describe("createDirectTransport", () => {
  it("turns a string answer into text with unknown usage and cost", async () => {
    const judge: JudgeModel = { name: "plain", generate: async () => '{"opinions": []}' };
    const response = await createDirectTransport().send(judge, request, meta);
    expect(response).toEqual({
      text: '{"opinions": []}',
      object: undefined,
      usage: null,
      costUsd: null,
      cached: false,
    });
  });

  it("keeps the text, object, usage and cost of a JudgeOutput", async () => {
    const judge: JudgeModel = {
      name: "rich",
      generate: async () => ({
        object: { opinions: ["x"] },
        usage: { inputTokens: 10, outputTokens: 2 },
        costUsd: 0.5,
      }),
    };
    const response = await createDirectTransport().send(judge, request, meta);
    expect(response).toEqual({
      text: null,
      object: { opinions: ["x"] },
      usage: { inputTokens: 10, outputTokens: 2 },
      costUsd: 0.5,
      cached: false,
    });
  });

  it("refuses images for a judge that cannot take them, before calling it", async () => {
    let calls = 0;
    const judge: JudgeModel = {
      name: "blind",
      generate: async () => {
        calls++;
        return "{}";
      },
    };
    const send = createDirectTransport().send(judge, { ...request, images: [image(png)] }, meta);
    await expect(send).rejects.toBeInstanceOf(ConfigError);
    await expect(send).rejects.toThrow(
      'Judge "blind" cannot take images, but the test case has 1 image: use a judge that supports images (e.g. gpt-4.1, claude-sonnet-4, gemini-2.5-flash) or set supportsImages on your JudgeModel.',
    );
    expect(calls).toBe(0);
    const seeing: JudgeModel = { ...judge, name: "seeing", supportsImages: true };
    await expect(
      createDirectTransport().send(seeing, { ...request, images: [image(png)] }, meta),
    ).resolves.toMatchObject({ text: "{}" });
    expect(calls).toBe(1);
  });

  it("retries with the request's metric step in onRetry, and hands the judge an abortable signal", async () => {
    const { delays, sleep } = fastSleep();
    const retries: JudgeRetryInfo[] = [];
    const signals: AbortSignal[] = [];
    let calls = 0;
    const judge: JudgeModel = {
      name: "flaky",
      generate: async ({ signal }) => {
        if (signal) signals.push(signal);
        calls++;
        if (calls === 1) throw Object.assign(new Error("Service Unavailable"), { status: 503 });
        return "{}";
      },
    };
    const transport = createDirectTransport({
      sleep,
      random: () => 0,
      onRetry: (info) => retries.push(info),
      retry: { initialDelayMs: 100 },
    });
    await expect(transport.send(judge, request, meta)).resolves.toMatchObject({ text: "{}" });
    expect(delays).toEqual([50]);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ judgeName: "flaky", attempt: 1, meta });
    expect(signals).toHaveLength(2);
  });

  it("keeps a custom judge's token logprobs, and refuses malformed ones", async () => {
    const logprobs = [{ token: "7", logprob: -0.3, topLogprobs: [{ token: "8", logprob: -1.5 }] }];
    const judge: JudgeModel = {
      name: "scoring",
      generate: async () => ({ text: "7", logprobs }),
    };
    expect((await createDirectTransport().send(judge, request, meta)).logprobs).toEqual(logprobs);
    const malformed: JudgeModel = {
      name: "malformed",
      generate: async () => ({ text: "7", logprobs: [{ token: "7", logprob: -0.3 }] }) as never,
    };
    await expect(createDirectTransport().send(malformed, request, meta)).rejects.toThrow(
      /Judge "malformed" answered with malformed logprobs/,
    );
  });

  it("rejects an answer that is neither a string nor an object", async () => {
    const judge = { name: "odd", generate: async () => 42 } as unknown as JudgeModel;
    await expect(createDirectTransport().send(judge, request, meta)).rejects.toThrow(
      /Judge "odd" answered a number/,
    );
  });
});

describe("createDirectTransport over HTTP (OpenAI-compatible server on 127.0.0.1)", () => {
  type Reply = { status: number; headers?: Record<string, string>; body: unknown };
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** Starts a server that plays `replies` in order and records each request body. */
  async function startServer(replies: Reply[]) {
    const requests: Array<{ url: string | undefined; body: Record<string, unknown> }> = [];
    server = createServer((incoming, outgoing) => {
      let text = "";
      incoming.on("data", (chunk) => {
        text += chunk;
      });
      incoming.on("end", () => {
        requests.push({ url: incoming.url, body: JSON.parse(text) });
        const reply = replies[requests.length - 1] ?? {
          status: 500,
          body: { error: { message: "unscripted" } },
        };
        outgoing.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        outgoing.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { baseURL: `http://127.0.0.1:${port}/v1`, requests };
  }

  const completion = (content: string) => ({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4.1",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
  });

  const apiKey = "sk-test-verdict-secret-0123456789";

  it("waits as long as Retry-After says after a 429, then returns the answer", async () => {
    const { baseURL, requests } = await startServer([
      {
        status: 429,
        headers: { "retry-after": "1" },
        body: {
          error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
        },
      },
      { status: 200, body: completion('{"opinions": ["The food was bad."]}') },
    ]);
    const judge = createJudge({ model: createOpenAI({ baseURL, apiKey }).chat("gpt-4.1") });
    const { delays, sleep } = fastSleep();
    const response = await createDirectTransport({ sleep, random: () => 0 }).send(
      judge,
      request,
      meta,
    );
    expect(delays).toEqual([1000]);
    expect(requests).toHaveLength(2);
    expect(requests[0]?.url).toBe("/v1/chat/completions");
    expect(requests[0]?.body.response_format).toMatchObject({ type: "json_schema" });
    expect(response).toMatchObject({
      text: '{"opinions": ["The food was bad."]}',
      usage: { inputTokens: 1000, outputTokens: 500 },
      cached: false,
    });
    expect(response.costUsd).toBeCloseTo(0.006, 12);
  });

  it("does not retry an exhausted quota", async () => {
    const { baseURL, requests } = await startServer([
      {
        status: 429,
        body: {
          error: {
            message: "You exceeded your current quota, please check your plan and billing details.",
            type: "insufficient_quota",
            code: "insufficient_quota",
          },
        },
      },
    ]);
    const judge = createJudge({ model: createOpenAI({ baseURL, apiKey }).chat("gpt-4.1") });
    const { delays, sleep } = fastSleep();
    const send = createDirectTransport({ sleep }).send(judge, request, meta);
    await expect(send).rejects.toBeInstanceOf(JudgeCallError);
    await expect(send).rejects.toMatchObject({
      status: 429,
      retryable: false,
      quotaExhausted: true,
    });
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("names OPENAI_API_KEY on a 401 without ever showing the key", async () => {
    const { baseURL, requests } = await startServer([
      {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${apiKey}.`,
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        },
      },
    ]);
    const judge = createJudge({ model: createOpenAI({ baseURL, apiKey }).chat("gpt-4.1") });
    const error = await createDirectTransport({ sleep: fastSleep().sleep })
      .send(judge, request, meta)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeCallError);
    const { message, status, retryable } = error as JudgeCallError;
    expect({ status, retryable }).toEqual({ status: 401, retryable: false });
    expect(message).toMatch(/^Judge "openai:gpt-4\.1"/);
    expect(message).toContain("OPENAI_API_KEY");
    expect(message).not.toContain(apiKey);
    expect(requests).toHaveLength(1);
  });
});
