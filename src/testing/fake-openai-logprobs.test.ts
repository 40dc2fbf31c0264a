import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveFakeLogprobs, tokeniseFakeAnswer } from "./fake-openai-logprobs.ts";
import { type FakeOpenAIServer, reply, startFakeOpenAIServer } from "./fake-openai-server.ts";

const API_KEY = "sk-test-secret-key";
const SCORE = { score: 7, reason: "Fits most of the steps." };
const CANDIDATES = [
  { token: "7", logprob: -0.3 },
  { token: "8", logprob: -1.5 },
  { token: "6", logprob: -2.5 },
];

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

type WireToken = {
  token: string;
  logprob: number;
  top_logprobs: Array<{ token: string; logprob: number }>;
};

/** The wire tokens the AI SDK passed on, joined (Responses gives an array per part or delta). */
function tokensOf(providerMetadata: unknown): WireToken[] {
  const logprobs = (providerMetadata as { openai?: { logprobs?: unknown[] } }).openai?.logprobs;
  if (logprobs === undefined) throw new Error("the answer carries no logprobs");
  return logprobs.flat() as WireToken[];
}

async function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify(body),
  });
}

describe("the fake tokeniser", () => {
  it("splits letters, numbers, whitespace and punctuation, and spells the answer exactly", () => {
    const text = '{"score":10,"reason":"Très bien — 1234 ok"}';
    const tokens = tokeniseFakeAnswer(text);
    expect(tokens.join("")).toBe(text);
    expect(tokens.slice(0, 8)).toEqual(["{", '"', "score", '"', ":", "10", ",", '"']);
    expect(tokens).toContain("Très");
    expect(tokens).toContain("123");
    expect(tokens).toContain("4");
    expect(tokens).toContain("—");
  });

  it("puts keyed candidates on the last token equal to the key", () => {
    const tokens = resolveFakeLogprobs({
      content: '{"score":7,"reason":"7 of 10"}',
      script: { "7": CANDIDATES },
    });
    const sevens = tokens.flatMap((entry, index) => (entry.token === "7" ? [index] : []));
    expect(sevens).toHaveLength(2);
    expect(tokens[sevens[0] as number]).toEqual({
      token: "7",
      logprob: 0,
      topLogprobs: [{ token: "7", logprob: 0 }],
    });
    expect(tokens[sevens[1] as number]).toEqual({
      token: "7",
      logprob: -0.3,
      topLogprobs: CANDIDATES,
    });
  });

  it("refuses, when the reply is made, a script that does not fit the answer", () => {
    expect(() => reply.json(SCORE, { logprobs: { "9": CANDIDATES } })).toThrow(
      /the token "9", which the answer does not have/,
    );
    expect(() => reply.text("7", { logprobs: [{ token: "7" }, { token: "." }] })).toThrow(
      /spell "7\.", not the answer "7"/,
    );
  });
});

const endpoints = [
  { name: "responses", model: () => provider()("gpt-4.1") },
  { name: "chat.completions", model: () => provider().chat("gpt-4.1") },
] as const;

describe.each(endpoints)("logprobs over $name", ({ model }) => {
  it("sends the scripted candidates of the score's token, cut to top_logprobs", async () => {
    server.enqueue(reply.json(SCORE, { logprobs: { "7": CANDIDATES } }));
    const result = await generateText({
      model: model(),
      prompt: "Score it.",
      maxRetries: 0,
      providerOptions: { openai: { logprobs: 2 } },
    });
    expect(result.text).toBe(JSON.stringify(SCORE));
    expect(server.requests[0]?.topLogprobs).toBe(2);
    const tokens = tokensOf(result.providerMetadata);
    expect(tokens.map((entry) => entry.token).join("")).toBe(result.text);
    // The AI SDK keeps token, logprob and top_logprobs of OpenAI's wire (not the bytes).
    expect(tokens.find((entry) => entry.token === "7")).toEqual({
      token: "7",
      logprob: -0.3,
      top_logprobs: [
        { token: "7", logprob: -0.3 },
        { token: "8", logprob: -1.5 },
      ],
    });
    expect(tokens.find((entry) => entry.token === "score")).toMatchObject({
      logprob: 0,
      top_logprobs: [{ token: "score", logprob: 0 }],
    });
  });

  it("sends them token by token when streaming", async () => {
    server.enqueue(reply.json(SCORE, { logprobs: { "7": CANDIDATES } }));
    const result = streamText({
      model: model(),
      prompt: "Score it.",
      maxRetries: 0,
      providerOptions: { openai: { logprobs: 3 } },
    });
    expect(await result.text).toBe(JSON.stringify(SCORE));
    const tokens = tokensOf(await result.providerMetadata);
    expect(tokens.map((entry) => entry.token).join("")).toBe(JSON.stringify(SCORE));
    expect(tokens.find((entry) => entry.token === "7")?.top_logprobs).toHaveLength(3);
  });

  it("sends a full scripted token list as given", async () => {
    const tokens = [
      {
        token: "yes",
        logprob: -0.1,
        topLogprobs: [
          { token: "yes", logprob: -0.1 },
          { token: "no", logprob: -2.4 },
        ],
      },
      { token: ".", logprob: -0.01 },
    ];
    server.enqueue(reply.text("yes.", { logprobs: tokens }));
    const result = await generateText({
      model: model(),
      prompt: "Answer.",
      maxRetries: 0,
      providerOptions: { openai: { logprobs: 5 } },
    });
    expect(
      tokensOf(result.providerMetadata).map((entry) => [
        entry.token,
        entry.logprob,
        entry.top_logprobs.map((candidate) => candidate.token),
      ]),
    ).toEqual([
      ["yes", -0.1, ["yes", "no"]],
      [".", -0.01, ["."]],
    ]);
  });

  it("asks for and sends none when the client does not ask", async () => {
    server.enqueue(reply.json(SCORE, { logprobs: { "7": CANDIDATES } }));
    const result = await generateText({ model: model(), prompt: "Score it.", maxRetries: 0 });
    expect(result.text).toBe(JSON.stringify(SCORE));
    const [request] = server.requests;
    expect(request?.topLogprobs).toBeUndefined();
    expect(request?.body).not.toHaveProperty("logprobs");
    expect(request?.body).not.toHaveProperty("top_logprobs");
    expect(JSON.stringify(request?.body)).not.toContain("output_text.logprobs");
    expect(
      (result.providerMetadata as { openai?: { logprobs?: unknown } }).openai?.logprobs,
    ).toBeUndefined();
  });
});

describe("logprobs on the wire", () => {
  it("answers Chat Completions in OpenAI's shape, null when not asked", async () => {
    server.enqueue(reply.text("7"), reply.text("7", { logprobs: { "7": CANDIDATES } }));
    const messages = [{ role: "user", content: "Score it." }];
    const plain = await (
      await postJson("/chat/completions", { model: "gpt-4.1", messages })
    ).json();
    expect(plain.choices[0].logprobs).toBeNull();
    const asked = await (
      await postJson("/chat/completions", { model: "gpt-4.1", messages, logprobs: true })
    ).json();
    // `logprobs: true` alone: each token's logprob, no candidates.
    expect(asked.choices[0].logprobs).toEqual({
      content: [{ token: "7", logprob: -0.3, bytes: [0x37], top_logprobs: [] }],
      refusal: null,
    });
  });

  it("answers the Responses API only when the logprobs are included", async () => {
    server.enqueue(reply.text("7"), reply.text("7"));
    const notIncluded = await (
      await postJson("/responses", { model: "gpt-4.1", input: "Score it.", top_logprobs: 2 })
    ).json();
    expect(notIncluded.output[0].content[0].logprobs).toEqual([]);
    const included = await (
      await postJson("/responses", {
        model: "gpt-4.1",
        input: "Score it.",
        top_logprobs: 2,
        include: ["message.output_text.logprobs"],
      })
    ).json();
    expect(included.output[0].content[0].logprobs).toEqual([
      {
        token: "7",
        logprob: 0,
        bytes: [0x37],
        top_logprobs: [{ token: "7", logprob: 0, bytes: [0x37] }],
      },
    ]);
    expect(server.requests.map((request) => request.topLogprobs)).toEqual([undefined, 2]);
  });

  it("refuses top_logprobs out of range, or without logprobs in Chat, as OpenAI does", async () => {
    const messages = [{ role: "user", content: "Score it." }];
    const tooMany = await postJson("/chat/completions", {
      model: "gpt-4.1",
      messages,
      logprobs: true,
      top_logprobs: 21,
    });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error.param).toBe("top_logprobs");
    const alone = await postJson("/chat/completions", {
      model: "gpt-4.1",
      messages,
      top_logprobs: 2,
    });
    expect(alone.status).toBe(400);
    expect((await alone.json()).error.message).toMatch(/'logprobs' must be set to true/);
    expect(server.requests).toHaveLength(0);
  });

  it("sends the logprobs of the answers that the seeded faults let through", async () => {
    await server.close();
    server = await startFakeOpenAIServer({
      faults: { seed: 3, serverError: 0.5 },
      respond: () => reply.text("7", { logprobs: { "7": CANDIDATES } }),
    });
    const statuses = new Set<number>();
    for (let attempt = 0; attempt < 64 && statuses.size < 2; attempt++) {
      const response = await postJson("/chat/completions", {
        model: "gpt-4.1",
        messages: [{ role: "user", content: `Score it (${attempt}).` }],
        logprobs: true,
        top_logprobs: 2,
      });
      statuses.add(response.status);
      if (response.status !== 200) {
        await response.body?.cancel();
        continue;
      }
      const body = await response.json();
      expect(body.choices[0].logprobs.content[0].top_logprobs).toEqual([
        { token: "7", logprob: -0.3, bytes: [0x37] },
        { token: "8", logprob: -1.5, bytes: [0x38] },
      ]);
    }
    expect([...statuses].sort()).toEqual([200, 500]);
  });
});
