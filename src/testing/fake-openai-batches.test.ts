import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import {
  APICallError,
  experimental_getBatchResults,
  experimental_getBatchStatus,
  experimental_startBatch,
  generateText,
  Output,
} from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type FakeOpenAIServer, reply, startFakeOpenAIServer } from "./fake-openai-server.ts";

const API_KEY = "sk-test-batch-key";
let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const headers = { authorization: `Bearer ${API_KEY}` };

/** A chat completions line asking for `text`, with its custom id. */
function chatLine(customId: string, text: string, extra: Record<string, unknown> = {}) {
  return {
    custom_id: customId,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "gpt-4.1", messages: [{ role: "user", content: text }], ...extra },
  };
}

async function upload(lines: unknown[], purpose = "batch"): Promise<Response> {
  const form = new FormData();
  const jsonl = lines.map((line) => `${JSON.stringify(line)}\n`).join("");
  form.append("file", new Blob([jsonl], { type: "application/jsonl" }), "input.jsonl");
  form.append("purpose", purpose);
  return fetch(`${server.url}/files`, { method: "POST", headers, body: form });
}

async function createBatch(lines: unknown[], endpoint = "/v1/chat/completions") {
  const file = (await (await upload(lines)).json()) as { id: string };
  const response = await fetch(`${server.url}/batches`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ input_file_id: file.id, endpoint, completion_window: "24h" }),
  });
  return (await response.json()) as Record<string, unknown> & { id: string; status: string };
}

async function retrieve(id: string) {
  const response = await fetch(`${server.url}/batches/${id}`, { headers });
  return (await response.json()) as Record<string, unknown> & {
    status: string;
    output_file_id: string | null;
    error_file_id: string | null;
    request_counts: { total: number; completed: number; failed: number };
    errors: { data: Array<{ code: string; line: number | null }> } | null;
  };
}

async function fileLines(id: string | null): Promise<Array<Record<string, unknown>>> {
  if (id === null) return [];
  const text = await (await fetch(`${server.url}/files/${id}/content`, { headers })).text();
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("the fake server's files", () => {
  it("stores an uploaded file and serves it back, metadata and content", async () => {
    const uploaded = await upload([chatLine("a", "Hello")]);
    expect(uploaded.status).toBe(200);
    const file = (await uploaded.json()) as { id: string; purpose: string; filename: string };
    expect(file).toMatchObject({ object: "file", purpose: "batch", filename: "input.jsonl" });
    const metadata = await fetch(`${server.url}/files/${file.id}`, { headers });
    expect(await metadata.json()).toMatchObject({ id: file.id, status: "processed" });
    expect(await fileLines(file.id)).toEqual([chatLine("a", "Hello")]);
    expect(server.stats().byEndpoint).toEqual({
      "files.create": 1,
      "files.retrieve": 1,
      "files.content": 1,
    });
  });

  it("refuses a purpose other than batch, a body that is not multipart, and an unknown file", async () => {
    expect((await upload([], "fine-tune")).status).toBe(400);
    const json = await fetch(`${server.url}/files`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(400);
    expect((await fetch(`${server.url}/files/file-missing/content`, { headers })).status).toBe(404);
  });
});

describe("the fake server's batches", () => {
  it("answers each line as the same request sent directly, in the output file", async () => {
    server.enqueue(reply.json({ verdict: "yes" }));
    const batch = await createBatch([chatLine("first", "Judge one"), chatLine("second", "Two")]);
    expect(batch).toMatchObject({
      object: "batch",
      status: "validating",
      completion_window: "24h",
    });
    const ended = await retrieve(batch.id);
    expect(ended.status).toBe("completed");
    expect(ended.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    const output = await fileLines(ended.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(["first", "second"]);
    const first = output[0] as { response: { status_code: number; body: { choices: unknown[] } } };
    expect(first.response.status_code).toBe(200);
    expect(first.response.body.choices).toMatchObject([
      { message: { content: '{"verdict":"yes"}' } },
    ]);
    expect(ended.error_file_id).toBeNull();
    expect(server.requests.map((request) => [request.prompt, request.batchId])).toEqual([
      ["Judge one", batch.id],
      ["Two", batch.id],
    ]);
    expect(server.stats()).toMatchObject({ batchLines: 2 });
    expect(server.stats().byEndpoint["chat.completions"]).toBeUndefined();
  });

  it("puts lines the responder failed in the error file, with their status and body", async () => {
    server.setResponder((request) =>
      request.prompt === "bad" ? reply.serverError(503) : undefined,
    );
    const batch = await createBatch([chatLine("ok", "fine"), chatLine("ko", "bad")]);
    const ended = await retrieve(batch.id);
    expect(ended.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });
    expect((await fileLines(ended.output_file_id)).map((line) => line.custom_id)).toEqual(["ok"]);
    expect(await fileLines(ended.error_file_id)).toMatchObject([
      {
        custom_id: "ko",
        response: { status_code: 503, body: { error: { type: "server_error" } } },
      },
    ]);
  });

  it("fails a line whose answer would be cut, unreadable or hung as a 500, in the error file", async () => {
    const broken = { cut: reply.cut(), page: reply.notJson(), hang: reply.hang() };
    server.setResponder((request) => broken[request.prompt as keyof typeof broken]);
    const batch = await createBatch(
      ["cut", "page", "hang", "fine"].map((prompt) => chatLine(prompt, prompt)),
    );
    const ended = await retrieve(batch.id);
    expect(ended.request_counts).toEqual({ total: 4, completed: 1, failed: 3 });
    const failures = await fileLines(ended.error_file_id);
    expect(failures.map((line) => line.custom_id)).toEqual(["cut", "page", "hang"]);
    expect(
      failures.every((line) => (line.response as { status_code: number }).status_code === 500),
    ).toBe(true);
  });

  it("refuses a streaming line, as OpenAI does", async () => {
    const batch = await createBatch([chatLine("s", "stream it", { stream: true })]);
    const ended = await retrieve(batch.id);
    expect(await fileLines(ended.error_file_id)).toMatchObject([
      { custom_id: "s", response: { status_code: 400 } },
    ]);
  });

  it("stays pending until its completion delay has passed, with growing counts", async () => {
    server.setBatchOptions({ completionDelayMs: 3_600_000 });
    const batch = await createBatch([chatLine("a", "x")]);
    const pending = await retrieve(batch.id);
    expect(["validating", "in_progress"]).toContain(pending.status);
    expect(pending.output_file_id).toBeNull();
    expect(server.stats().batchLines).toBe(0);
    expect(server.batches()).toEqual([
      {
        id: batch.id,
        endpoint: "/v1/chat/completions",
        status: pending.status,
        lines: 1,
        retrievals: 1,
      },
    ]);
  });

  it("expires a batch as told: its first lines answered, the rest batch_expired", async () => {
    server.setBatchOptions({
      expire: (batch) => (batch.sequence === 1 ? { answeredLines: 1 } : false),
    });
    const batch = await createBatch([chatLine("a", "x"), chatLine("b", "y"), chatLine("c", "z")]);
    const ended = await retrieve(batch.id);
    expect(ended.status).toBe("expired");
    expect(ended.request_counts).toEqual({ total: 3, completed: 1, failed: 2 });
    expect((await fileLines(ended.output_file_id)).map((line) => line.custom_id)).toEqual(["a"]);
    expect(await fileLines(ended.error_file_id)).toMatchObject([
      { custom_id: "b", response: null, error: { code: "batch_expired" } },
      { custom_id: "c", response: null, error: { code: "batch_expired" } },
    ]);
    const next = await retrieve((await createBatch([chatLine("d", "w")])).id);
    expect(next.status).toBe("completed");
  });

  it("cancels a batch that has not ended: cancelling, then cancelled with batch_cancelled lines", async () => {
    server.setBatchOptions({ completionDelayMs: 3_600_000 });
    const batch = await createBatch([chatLine("a", "x")]);
    const cancel = await fetch(`${server.url}/batches/${batch.id}/cancel`, {
      method: "POST",
      headers,
    });
    expect(await cancel.json()).toMatchObject({ status: "cancelling" });
    const ended = await retrieve(batch.id);
    expect(ended.status).toBe("cancelled");
    expect(await fileLines(ended.error_file_id)).toMatchObject([
      { custom_id: "a", error: { code: "batch_cancelled" } },
    ]);
    const again = await fetch(`${server.url}/batches/${batch.id}/cancel`, {
      method: "POST",
      headers,
    });
    expect(again.status).toBe(400);
    expect(server.stats().batchLines).toBe(0);
  });

  it("fails a batch whose input does not validate, naming the lines", async () => {
    const batch = await createBatch([
      chatLine("same", "x"),
      chatLine("same", "y"),
      { ...chatLine("other", "z"), url: "/v1/responses" },
    ]);
    expect(batch.status).toBe("failed");
    const failed = await retrieve(batch.id);
    expect(failed.errors?.data.map((error) => [error.code, error.line])).toEqual([
      ["duplicate_custom_id", 2],
      ["mismatched_endpoint", 3],
    ]);
  });

  it("refuses an unknown endpoint or window, and an unknown batch", async () => {
    const file = (await (await upload([chatLine("a", "x")])).json()) as { id: string };
    const create = (body: object) =>
      fetch(`${server.url}/batches`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const base = {
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    };
    expect((await create({ ...base, endpoint: "/v1/embeddings" })).status).toBe(400);
    expect((await create({ ...base, completion_window: "1h" })).status).toBe(400);
    expect((await create({ ...base, input_file_id: "file-missing" })).status).toBe(404);
    expect((await fetch(`${server.url}/batches/batch_missing`, { headers })).status).toBe(404);
  });

  it("lists batches newest first, a page at a time", async () => {
    const first = await createBatch([chatLine("a", "x")]);
    const second = await createBatch([chatLine("b", "y")]);
    const page = await (await fetch(`${server.url}/batches?limit=1`, { headers })).json();
    expect(page).toMatchObject({ data: [{ id: second.id }], has_more: true, last_id: second.id });
    const next = await (
      await fetch(`${server.url}/batches?limit=1&after=${second.id}`, { headers })
    ).json();
    expect(next).toMatchObject({ data: [{ id: first.id }], has_more: false });
  });

  it("serves the AI SDK's own batch functions, Responses lines included", async () => {
    const openai = createOpenAI({ baseURL: server.url, apiKey: API_KEY });
    server.enqueue(reply.json({ answer: 42 }));
    const batch = await experimental_startBatch({
      provider: openai,
      requests: [{ id: "q1", type: "text", model: "gpt-4.1", prompt: "What is six times seven?" }],
    });
    const results = [];
    for await (const result of experimental_getBatchResults({ provider: openai, batch })) {
      results.push(result);
    }
    expect(results).toMatchObject([{ id: "q1", status: "succeeded", text: '{"answer":42}' }]);
    expect(server.requests[0]).toMatchObject({
      endpoint: "responses",
      prompt: "What is six times seven?",
      batchId: batch.id,
      headers: { authorization: "Bearer ***" },
    });
  });

  it("forgets files and batches on reset", async () => {
    const batch = await createBatch([chatLine("a", "x")]);
    server.reset();
    expect(server.batches()).toEqual([]);
    expect((await fetch(`${server.url}/batches/${batch.id}`, { headers })).status).toBe(404);
  });
});

describe("the fake server's Anthropic Messages and Message Batches", () => {
  const anthropic = () => createAnthropic({ baseURL: server.url, apiKey: "sk-ant-test-key" });

  it("answers a Messages call with the JSON schema asked for, through the AI SDK", async () => {
    const schema = z.object({ opinions: z.array(z.string()) });
    const result = await generateText({
      model: anthropic()("claude-sonnet-4-5"),
      prompt: "List the opinions.",
      output: Output.object({ schema }),
    });
    expect(schema.parse(result.output)).toEqual(result.output);
    expect(server.requests[0]).toMatchObject({
      endpoint: "messages",
      model: "claude-sonnet-4-5",
      prompt: "List the opinions.",
      responseFormat: "json_schema",
      headers: { "x-api-key": "***" },
    });
    expect(server.stats().byEndpoint).toEqual({ messages: 1 });
  });

  it("answers errors in Anthropic's shape", async () => {
    server.enqueue(reply.error(529, { message: "Overloaded" }));
    const error = await generateText({
      model: anthropic()("claude-sonnet-4-5"),
      prompt: "Hi",
      maxRetries: 0,
    }).catch((caught: unknown) => caught);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(529);
    expect(JSON.parse((error as APICallError).responseBody ?? "")).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
  });

  it("runs a Message Batch through the AI SDK: in progress, then ended with each result", async () => {
    server.setBatchOptions({ completionDelayMs: 3_600_000 });
    server.setResponder((request) =>
      request.prompt === "fail" ? reply.serverError(500) : reply.json({ ok: true }),
    );
    const provider = anthropic();
    const batch = await experimental_startBatch({
      provider,
      requests: [
        { id: "good", type: "text", model: "claude-sonnet-4-5", prompt: "fine" },
        { id: "bad", type: "text", model: "claude-sonnet-4-5", prompt: "fail" },
      ],
    });
    expect(batch.id).toMatch(/^msgbatch_/);
    expect(await experimental_getBatchStatus({ provider, batch })).toMatchObject({
      status: "pending",
      rawStatus: "in_progress",
      requestCounts: { total: 2, pending: 2 },
    });
    const early = await fetch(`${server.url}/messages/batches/${batch.id}/results`);
    expect(early.status).toBe(400);
    server.setBatchOptions({});
    expect(await experimental_getBatchStatus({ provider, batch })).toMatchObject({
      status: "completed",
      rawStatus: "ended",
      requestCounts: { total: 2, completed: 1, failed: 1 },
    });
    const results = [];
    for await (const result of experimental_getBatchResults({ provider, batch })) {
      results.push(result);
    }
    expect(results).toMatchObject([
      { id: "good", status: "succeeded", text: '{"ok":true}' },
      { id: "bad", status: "failed", error: { type: "api_error" } },
    ]);
    expect(server.requests.map((request) => [request.endpoint, request.batchId])).toEqual([
      ["messages", batch.id],
      ["messages", batch.id],
    ]);
  });

  it("expires or cancels a Message Batch, each request saying so", async () => {
    server.setBatchOptions({ expire: () => ({ answeredLines: 1 }) });
    const create = (ids: string[]) =>
      fetch(`${server.url}/messages/batches`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k" },
        body: JSON.stringify({
          requests: ids.map((id) => ({
            custom_id: id,
            params: {
              model: "claude-sonnet-4-5",
              max_tokens: 10,
              messages: [{ role: "user", content: id }],
            },
          })),
        }),
      }).then((response) => response.json() as Promise<{ id: string; processing_status: string }>);
    const results = async (id: string) => {
      const ended = (await (await fetch(`${server.url}/messages/batches/${id}`)).json()) as {
        results_url: string;
        request_counts: Record<string, number>;
      };
      const text = await (await fetch(ended.results_url)).text();
      return {
        counts: ended.request_counts,
        lines: text
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line)),
      };
    };
    const expiring = await create(["a", "b"]);
    expect(await results(expiring.id)).toMatchObject({
      counts: { succeeded: 1, expired: 1, processing: 0 },
      lines: [
        { custom_id: "a", result: { type: "succeeded" } },
        { custom_id: "b", result: { type: "expired" } },
      ],
    });
    server.setBatchOptions({ completionDelayMs: 3_600_000 });
    const cancelled = await create(["c"]);
    const cancel = await fetch(`${server.url}/messages/batches/${cancelled.id}/cancel`, {
      method: "POST",
    });
    expect(await cancel.json()).toMatchObject({ processing_status: "canceling" });
    expect(await results(cancelled.id)).toMatchObject({
      counts: { canceled: 1 },
      lines: [{ custom_id: "c", result: { type: "canceled" } }],
    });
  });

  it("refuses a Message Batch with a bad or repeated custom_id", async () => {
    const post = (requests: unknown[]) =>
      fetch(`${server.url}/messages/batches`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ requests }),
      });
    const params = { model: "claude-sonnet-4-5", max_tokens: 10, messages: [] };
    const bad = await post([{ custom_id: "has space", params }]);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error" },
    });
    expect(
      (
        await post([
          { custom_id: "x", params },
          { custom_id: "x", params },
        ])
      ).status,
    ).toBe(400);
    expect(server.batches()).toEqual([]);
  });
});
