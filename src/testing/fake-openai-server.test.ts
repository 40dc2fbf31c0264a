import { connect } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateText, NoObjectGeneratedError, Output, streamText, tool } from "ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type FakeOpenAIServer, reply, startFakeOpenAIServer } from "./fake-openai-server.ts";

const API_KEY = "sk-test-secret-key";
const verdictSchema = z.object({
  verdict: z.enum(["yes", "no", "idk"]),
  reasons: z.array(z.string()).min(2).max(4),
  score: z.number().min(0).max(1),
});
const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

function provider() {
  return createOpenAI({ baseURL: server.url, apiKey: API_KEY });
}

const endpoints = [
  { name: "responses", model: () => provider()("gpt-4.1") },
  { name: "chat.completions", model: () => provider().chat("gpt-4.1") },
] as const;

/** The rejection of a promise, to assert on its fields. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

async function postJson(options: { path: string; body: string }): Promise<Response> {
  return fetch(`${server.url}${options.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
    body: options.body,
  });
}

describe.each(endpoints)("the AI SDK over $name", ({ name, model }) => {
  it("parses a scripted JSON reply into the output object", async () => {
    const scripted = { verdict: "no", reasons: ["rude", "off-topic"], score: 0.25 };
    server.enqueue(reply.json(scripted));
    const result = await generateText({
      model: model(),
      system: "You are a judge.",
      prompt: "Is this polite?",
      output: Output.object({ schema: verdictSchema }),
      temperature: 0,
      maxRetries: 0,
    });
    expect(result.output).toEqual(scripted);
    const [request] = server.requests;
    expect(request).toMatchObject({
      endpoint: name,
      model: "gpt-4.1",
      prompt: "You are a judge.\nIs this polite?",
      responseFormat: "json_schema",
      temperature: 0,
      stream: false,
    });
    expect(request?.jsonSchema?.properties).toHaveProperty("verdict");
  });

  it("fills the schema asked for when nothing is scripted, the same way every time", async () => {
    const ask = () =>
      generateText({
        model: model(),
        prompt: "Judge this answer.",
        output: Output.object({ schema: verdictSchema }),
        maxRetries: 0,
      });
    const first = await ask();
    const second = await ask();
    expect(["yes", "no", "idk"]).toContain(first.output.verdict);
    expect(first.output.reasons.length).toBe(2);
    expect(verdictSchema.parse(first.output)).toEqual(first.output);
    expect(second.output).toEqual(first.output);
  });

  it("reports token usage that matches the server's counters", async () => {
    const result = await generateText({ model: model(), prompt: "12345678", maxRetries: 0 });
    expect(result.text).toBe("{}");
    expect(result.usage.inputTokens).toBe(2);
    expect(result.usage.outputTokens).toBe(1);
    expect(server.stats()).toMatchObject({ inputTokens: 2, outputTokens: 1 });
  });

  it("answers 429 with Retry-After, as an APICallError", async () => {
    server.enqueue(reply.rateLimit({ retryAfterSeconds: 7 }));
    const error = await rejectionOf(generateText({ model: model(), prompt: "Hi", maxRetries: 0 }));
    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(429);
    expect(apiError.responseHeaders?.["retry-after"]).toBe("7");
    expect(JSON.parse(apiError.responseBody ?? "{}").error.code).toBe("rate_limit_exceeded");
  });

  it("answers an exhausted quota with OpenAI's insufficient_quota body", async () => {
    server.enqueue(reply.quotaExceeded());
    const error = (await rejectionOf(
      generateText({ model: model(), prompt: "Hi", maxRetries: 0 }),
    )) as APICallError;
    expect(error.statusCode).toBe(429);
    const body = JSON.parse(error.responseBody ?? "{}");
    expect(body.error).toMatchObject({ type: "insufficient_quota", code: "insufficient_quota" });
    expect(error.message).toMatch(/exceeded your current quota/);
  });

  it("answers a server error with status 500", async () => {
    server.enqueue(reply.serverError());
    const error = (await rejectionOf(
      generateText({ model: model(), prompt: "Hi", maxRetries: 0 }),
    )) as APICallError;
    expect(error.statusCode).toBe(500);
    expect(error.isRetryable).toBe(true);
  });

  it("passes malformed JSON through as the raw text", async () => {
    const malformed = '```json\n{"verdict": "yes", "reasons": [\n```';
    server.enqueue(reply.text(malformed), reply.text(malformed));
    const plain = await generateText({ model: model(), prompt: "Hi", maxRetries: 0 });
    expect(plain.text).toBe(malformed);
    const error = await rejectionOf(
      generateText({
        model: model(),
        prompt: "Hi",
        output: Output.object({ schema: verdictSchema }),
        maxRetries: 0,
      }),
    );
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true);
    expect((error as NoObjectGeneratedError).text).toBe(malformed);
  });

  it("drops the connection without an answer", async () => {
    server.enqueue(reply.drop());
    await expect(generateText({ model: model(), prompt: "Hi", maxRetries: 0 })).rejects.toThrow();
    expect(server.stats().byStatus).toEqual({ dropped: 1 });
    const after = await generateText({ model: model(), prompt: "Hi again", maxRetries: 0 });
    expect(after.text).toBe("{}");
  });

  it("cuts an answer short after its headers, then answers the next call in full", async () => {
    server.enqueue(reply.cut(), reply.cut({ afterBytes: 25 }));
    for (let cut = 0; cut < 2; cut++) {
      const error = await rejectionOf(
        generateText({ model: model(), prompt: "Hi", maxRetries: 0 }),
      );
      // The status and headers arrived; the body never did in full.
      expect(APICallError.isInstance(error)).toBe(true);
      expect((error as APICallError).statusCode).toBe(200);
      expect(String((error as Error).cause)).toMatch(/terminated/);
    }
    expect(server.stats().byStatus).toEqual({ cut: 2 });
    const after = await generateText({ model: model(), prompt: "Hi again", maxRetries: 0 });
    expect(after.text).toBe("{}");
  });

  it("sends a cut answer's headers before its connection is destroyed", async () => {
    server.enqueue(reply.cut({ afterBytes: 10 }));
    const response = await postJson({
      path: name === "responses" ? "/responses" : "/chat/completions",
      body: JSON.stringify(
        name === "responses"
          ? { model: "gpt-4.1", input: "Hi" }
          : { model: "gpt-4.1", messages: [{ role: "user", content: "Hi" }] },
      ),
    });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get("content-length"))).toBeGreaterThan(10);
    await expect(response.text()).rejects.toThrow(/terminated/);
  });

  it("answers 200 with a body that is not JSON: a proxy's page, or the text given", async () => {
    server.enqueue(
      reply.notJson(),
      reply.notJson({ body: "upstream busy", contentType: "text/plain" }),
    );
    const page = (await rejectionOf(
      generateText({ model: model(), prompt: "Hi", maxRetries: 0 }),
    )) as APICallError;
    expect(page.statusCode).toBe(200);
    expect(page.responseBody).toMatch(/<h1>502 Bad Gateway<\/h1>/);
    const plain = (await rejectionOf(
      generateText({ model: model(), prompt: "Hi", maxRetries: 0 }),
    )) as APICallError;
    expect(plain.responseBody).toBe("upstream busy");
    expect(server.stats().byStatus).toEqual({ "not-json": 2 });
  });

  it("hangs without answering until the client gives up", async () => {
    server.enqueue(reply.hang());
    const giveUp = new AbortController();
    const call = generateText({
      model: model(),
      prompt: "Hi",
      maxRetries: 0,
      abortSignal: giveUp.signal,
    });
    await vi.waitFor(() => expect(server.stats().byStatus).toEqual({ hung: 1 }));
    expect(server.stats().inFlight).toBe(1);
    giveUp.abort();
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(server.stats().inFlight).toBe(0));
  });

  it("records image parts as URLs, in order", async () => {
    await generateText({
      model: model(),
      maxRetries: 0,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe both." },
            // File parts with an image media type: the AI SDK's "image" part is deprecated.
            { type: "file", mediaType: "image", data: new URL("https://example.com/a.png") },
            { type: "file", mediaType: "image", data: PNG_BYTES },
            { type: "file", mediaType: "image/png", data: PNG_BYTES },
          ],
        },
      ],
    });
    const dataUrl = `data:image/png;base64,${Buffer.from(PNG_BYTES).toString("base64")}`;
    expect(server.requests[0]?.images).toEqual(["https://example.com/a.png", dataUrl, dataUrl]);
    expect(server.requests[0]?.prompt).toBe("Describe both.");
    expect(server.stats().inputTokens).toBe(Math.ceil("Describe both.".length / 4) + 3 * 85);
  });

  it("streams a filled answer as server-sent events", async () => {
    const result = streamText({
      model: model(),
      prompt: "Stream a verdict.",
      output: Output.object({ schema: verdictSchema }),
      maxRetries: 0,
    });
    const output = await result.output;
    expect(verdictSchema.parse(output)).toEqual(output);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(server.requests[0]?.stream).toBe(true);
  });

  it("answers a forced tool call with the tool's filled arguments", async () => {
    const result = await generateText({
      model: model(),
      prompt: "Grade it.",
      tools: {
        grade: tool({
          inputSchema: z.object({ grade: z.enum(["A", "B", "C"]), notes: z.string() }),
        }),
      },
      toolChoice: { type: "tool", toolName: "grade" },
      maxRetries: 0,
    });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]?.toolName).toBe("grade");
    expect(["A", "B", "C"]).toContain(
      (result.toolCalls[0]?.input as { grade?: string } | undefined)?.grade,
    );
    expect(server.requests[0]).toMatchObject({ responseFormat: "tool", toolName: "grade" });
  });

  it("streams a scripted tool call", async () => {
    server.enqueue(reply.json({ grade: "B", notes: "mostly right" }));
    const result = streamText({
      model: model(),
      prompt: "Grade it.",
      tools: {
        grade: tool({
          inputSchema: z.object({ grade: z.enum(["A", "B", "C"]), notes: z.string() }),
        }),
      },
      toolChoice: { type: "tool", toolName: "grade" },
      maxRetries: 0,
    });
    const toolCalls = await result.toolCalls;
    expect(toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ["grade", { grade: "B", notes: "mostly right" }],
    ]);
  });
});

describe("chat completions with tools, over plain fetch", () => {
  const tools = [
    {
      type: "function",
      function: {
        name: "submit_verdict",
        parameters: {
          type: "object",
          properties: { verdict: { type: "string", enum: ["yes", "no"] } },
          required: ["verdict"],
        },
      },
    },
  ];

  it("answers tool_choice with a tool call whose arguments are the JSON", async () => {
    server.enqueue(reply.json({ verdict: "yes" }));
    const response = await postJson({
      path: "/chat/completions",
      body: JSON.stringify({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "Judge." }],
        tools,
        tool_choice: { type: "function", function: { name: "submit_verdict" } },
      }),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    const call = body.choices[0].message.tool_calls[0];
    expect(call.type).toBe("function");
    expect(call.function.name).toBe("submit_verdict");
    expect(JSON.parse(call.function.arguments)).toEqual({ verdict: "yes" });
    expect(body.choices[0].message.content).toBeNull();
    expect(server.requests[0]).toMatchObject({
      responseFormat: "tool",
      toolName: "submit_verdict",
      jsonSchema: tools[0]?.function.parameters,
    });
  });

  it("fills the forced tool's parameters when nothing is scripted", async () => {
    const response = await postJson({
      path: "/chat/completions",
      body: JSON.stringify({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "Judge." }],
        tools,
        tool_choice: "required",
      }),
    });
    const body = await response.json();
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    const argumentsJson = JSON.parse(body.choices[0].message.tool_calls[0].function.arguments);
    expect(["yes", "no"]).toContain(argumentsJson.verdict);
  });
});

describe("scripting", () => {
  it("consumes queued replies in order, then asks the responder, then fills", async () => {
    await server.close();
    const seen: string[] = [];
    server = await startFakeOpenAIServer({
      replies: [reply.text("first"), () => reply.text("second")],
      respond: (request) => {
        seen.push(request.prompt);
        return request.prompt === "fill me" ? undefined : reply.text(`echo ${request.prompt}`);
      },
    });
    const model = provider().chat("gpt-4.1");
    const texts: string[] = [];
    for (const prompt of ["a", "b", "c", "fill me"]) {
      texts.push((await generateText({ model, prompt, maxRetries: 0 })).text);
    }
    expect(texts).toEqual(["first", "second", "echo c", "{}"]);
    expect(seen).toEqual(["c", "fill me"]);
  });

  it("turns a responder that throws into a 500 that says why", async () => {
    server.setResponder(() => {
      throw new Error("no script for this prompt");
    });
    const error = (await rejectionOf(
      generateText({ model: provider()("gpt-4.1"), prompt: "Hi", maxRetries: 0 }),
    )) as APICallError;
    expect(error.statusCode).toBe(500);
    expect(error.message).toMatch(/no script for this prompt/);
  });

  it("answers a 500 that says why when the default answer cannot satisfy the schema", async () => {
    const error = (await rejectionOf(
      generateText({
        model: provider()("gpt-4.1"),
        prompt: "Who wrote it?",
        output: Output.object({ schema: z.object({ contact: z.email() }) }),
        maxRetries: 0,
      }),
    )) as APICallError;
    expect(error.statusCode).toBe(500);
    expect(error.message).toMatch(/cannot satisfy "format" \(at \$\.contact\)/);
  });

  it("resets requests, counters and the queue", async () => {
    server.enqueue(reply.serverError(), reply.serverError());
    await rejectionOf(generateText({ model: provider()("gpt-4.1"), prompt: "Hi", maxRetries: 0 }));
    server.reset();
    expect(server.requests).toEqual([]);
    expect(server.stats()).toMatchObject({ requests: 0, byStatus: {}, peakInFlight: 0 });
    const result = await generateText({
      model: provider()("gpt-4.1"),
      prompt: "Hi",
      maxRetries: 0,
    });
    expect(result.text).toBe("{}");
  });
});

describe("counters", () => {
  it("counts requests, endpoints, statuses and the peak of concurrent requests", async () => {
    const concurrent = 4;
    let arrived = 0;
    let releaseAll: () => void = () => {};
    const allArrived = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    // Holding every answer until all requests have arrived makes the peak exact, not timed.
    server.setResponder(async () => {
      arrived++;
      if (arrived === concurrent) releaseAll();
      await allArrived;
      return undefined;
    });
    server.setLatency(20);
    const model = provider()("gpt-4.1");
    await Promise.all(
      Array.from({ length: concurrent }, (_, index) =>
        generateText({ model, prompt: `case ${index}`, maxRetries: 0 }),
      ),
    );
    server.enqueue(reply.rateLimit());
    await rejectionOf(
      generateText({ model: provider().chat("gpt-4.1"), prompt: "x", maxRetries: 0 }),
    );
    const stats = server.stats();
    expect(stats).toMatchObject({
      requests: concurrent + 1,
      byEndpoint: { responses: concurrent, "chat.completions": 1 },
      byStatus: { "200": concurrent, "429": 1 },
      inFlight: 0,
      peakInFlight: concurrent,
    });
    expect(stats.inputTokens).toBe(concurrent * Math.ceil("case 0".length / 4));
    const served = await (await fetch(server.url.replace(/\/v1$/, "/stats"))).json();
    expect(served).toEqual(stats);
  });
});

describe("the wire", () => {
  it("redacts the API key from recorded headers", async () => {
    await generateText({ model: provider()("gpt-4.1"), prompt: "Hi", maxRetries: 0 });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer ***");
    expect(server.requests[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.stringify(server.requests)).not.toContain(API_KEY);
  });

  it("answers unknown routes with a 404 error body", async () => {
    const response = await postJson({ path: "/completions/nope", body: "{}" });
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body.error.message).toBe("Invalid URL (POST /v1/completions/nope)");
    expect(server.stats().byEndpoint).toEqual({ unknown: 1 });
  });

  it("answers a malformed body with a 400 error body and records nothing", async () => {
    server.enqueue(reply.json({ kept: true }));
    const response = await postJson({ path: "/chat/completions", body: '{"model": "gpt-4.1",' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.type).toBe("invalid_request_error");
    const missingModel = await postJson({ path: "/responses", body: '{"input": "hi"}' });
    expect(missingModel.status).toBe(400);
    expect((await missingModel.json()).error.message).toMatch(/model/);
    expect(server.requests).toEqual([]);
    const result = await generateText({
      model: provider()("gpt-4.1"),
      prompt: "Hi",
      maxRetries: 0,
    });
    expect(result.text).toBe('{"kept":true}');
  });

  it("answers a JSON-object request without a schema with {}", async () => {
    const response = await postJson({
      path: "/chat/completions",
      body: JSON.stringify({
        model: "gpt-4.1",
        messages: [{ role: "user", content: "Reply in JSON." }],
        response_format: { type: "json_object" },
      }),
    });
    const body = await response.json();
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0].message.content).toBe("{}");
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(server.requests[0]).toMatchObject({ responseFormat: "json_object", jsonSchema: null });
  });

  it.each([
    ["chat", "length", "length"],
    ["chat", "content_filter", "content-filter"],
    ["responses", "length", "length"],
    ["responses", "content_filter", "content-filter"],
  ] as const)(
    "plays an answer the %s API cut off with finish reason %s",
    async (api, finishReason, unified) => {
      server.enqueue(reply.text('{"reason": "cut', { finishReason }));
      const model = api === "chat" ? provider().chat("gpt-4.1") : provider().responses("gpt-4.1");
      const result = await generateText({ model, prompt: "Hi", maxRetries: 0 });
      expect(result.text).toBe('{"reason": "cut');
      expect(result.finishReason).toBe(unified);
    },
  );

  it.each([false, true])("streams a cut-off answer (Responses API: %s)", async (responses) => {
    server.enqueue(reply.text('{"reason": "cut', { finishReason: "length" }));
    const model = responses ? provider().responses("gpt-4.1") : provider().chat("gpt-4.1");
    const result = streamText({ model, prompt: "Hi", maxRetries: 0 });
    expect(await result.text).toBe('{"reason": "cut');
    expect(await result.finishReason).toBe("length");
  });

  it("lists gpt-4.1 and the models it has seen", async () => {
    await generateText({ model: provider().chat("my-judge"), prompt: "Hi", maxRetries: 0 });
    const response = await fetch(`${server.url}/models`);
    const body = await response.json();
    expect(body.object).toBe("list");
    expect(body.data.map((model: { id: string }) => model.id)).toEqual(["gpt-4.1", "my-judge"]);
  });

  it("closes connections whose request is still arriving", async () => {
    const { port } = new URL(server.url);
    const socket = connect({ host: "127.0.0.1", port: Number(port) });
    const socketClosed = new Promise((resolve) => socket.on("close", resolve));
    socket.write("POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    await vi.waitFor(() => expect(server.stats().inFlight).toBe(1));
    await server.close();
    await socketClosed;
    expect(socket.destroyed).toBe(true);
  });

  it("closes connections it hangs on", async () => {
    server.setResponder(() => reply.hang());
    const pending = generateText({ model: provider()("gpt-4.1"), prompt: "Hi", maxRetries: 0 });
    await vi.waitFor(() => expect(server.stats().byStatus).toEqual({ hung: 1 }));
    await server.close();
    await expect(pending).rejects.toThrow();
  });

  it("closes connections that are waiting for an answer", async () => {
    server.setLatency(10 * 60 * 1000);
    const pending = fetch(`${server.url}/models`);
    await vi.waitFor(() => expect(server.stats().inFlight).toBe(1));
    await server.close();
    await expect(pending).rejects.toThrow();
  });
});
