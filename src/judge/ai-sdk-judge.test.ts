import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { APICallError } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { pngWith } from "../../test/fixtures/images.ts";
import { image } from "../test-case/image.ts";
import { AiSdkJudge, createJudge } from "./ai-sdk-judge.ts";
import type { JudgeRequest } from "./judge-model.ts";

const schema = z.object({ opinions: z.array(z.string()) });
const request: JudgeRequest = {
  prompt: 'Extract the opinions. Answer in JSON: {"opinions": [...]}',
  schema,
  jsonSchema: z.toJSONSchema(schema),
};

function answer(text: string, usage = { input: 100, output: 20 }): LanguageModelV4GenerateResult {
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: {
        total: usage.input,
        noCache: undefined,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: usage.output, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

function rejection(options: { status: number; message: string }): APICallError {
  return new APICallError({
    message: options.message,
    url: "https://api.example.test/v1/chat/completions",
    requestBodyValues: {},
    statusCode: options.status,
    responseBody: JSON.stringify({
      error: { message: options.message, type: "invalid_request_error" },
    }),
    isRetryable: false,
  });
}

/** A mock model that plays `script` in order: an answer text or an error to throw. */
function scriptedModel(options: {
  modelId?: string;
  provider?: string;
  script: Array<string | Error>;
}) {
  const script = [...options.script];
  return new MockLanguageModelV4({
    provider: options.provider ?? "openai.chat",
    modelId: options.modelId ?? "gpt-4.1",
    // URL images are passed through, as the OpenAI provider does, so nothing is downloaded.
    supportedUrls: { "image/*": [/^https?:\/\/.*$/] },
    doGenerate: async () => {
      const next = script.shift();
      if (next === undefined) throw new Error("unscripted call");
      if (next instanceof Error) throw next;
      return answer(next);
    },
  });
}

const responseFormats = (model: MockLanguageModelV4) =>
  model.doGenerateCalls.map((call: LanguageModelV4CallOptions) => call.responseFormat);

describe("createJudge", () => {
  it("names the judge <provider>:<modelId> and knows vision models", () => {
    const judge = createJudge({
      model: scriptedModel({
        provider: "anthropic.messages",
        modelId: "claude-sonnet-4-5",
        script: [],
      }),
    });
    expect(judge).toBeInstanceOf(AiSdkJudge);
    expect(judge.name).toBe("anthropic:claude-sonnet-4-5");
    expect(judge.supportsImages).toBe(true);
    const local = createJudge({
      model: scriptedModel({ provider: "ollama.chat", modelId: "llama3.1", script: [] }),
    });
    expect(local.name).toBe("ollama:llama3.1");
    expect(local.supportsImages).toBe(false);
    expect(
      createJudge({ model: scriptedModel({ modelId: "o3-mini", script: [] }) }).supportsImages,
    ).toBe(false);
    expect(
      createJudge({ model: scriptedModel({ modelId: "o3", script: [] }) }).supportsImages,
    ).toBe(true);
    expect(
      createJudge({ model: scriptedModel({ script: [] }), name: "mine", supportsImages: false }),
    ).toMatchObject({ name: "mine", supportsImages: false });
  });

  it.each([
    ["stop", "stop"],
    ["length", "max_tokens"],
    ["content-filter", "SAFETY"],
  ] as const)('passes on the finish reason "%s" (raw %s)', async (unified, raw) => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({ ...answer('{"opinions": ['), finishReason: { unified, raw } }),
    });
    const output = await createJudge({ model }).generate(request);
    expect(output).toMatchObject({ text: '{"opinions": [', finishReason: unified });
  });

  it("asks for native JSON-schema output first, with temperature 0 and no SDK retries", async () => {
    const model = scriptedModel({ script: ['{"opinions": []}'] });
    const judge = createJudge({ model });
    const output = await judge.generate(request);
    expect(output.text).toBe('{"opinions": []}');
    const call = model.doGenerateCalls[0];
    expect(call?.responseFormat).toEqual({
      type: "json",
      schema: request.jsonSchema,
      name: "answer",
    });
    expect(call?.temperature).toBe(0);
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("sends strict schemas strict and schemas with optional fields non-strict (OpenAI)", async () => {
    const loose = z.object({
      verdicts: z.array(z.object({ verdict: z.string(), reason: z.string().optional() })),
    });
    const model = scriptedModel({ script: ["{}", "{}"] });
    const judge = createJudge({ model });
    await judge.generate(request);
    await judge.generate({ ...request, schema: loose, jsonSchema: z.toJSONSchema(loose) });
    const strict = model.doGenerateCalls.map(
      (call) => call.providerOptions?.openai?.strictJsonSchema,
    );
    expect(strict).toEqual([true, false]);
  });

  it("steps down to JSON mode, then text, when the provider rejects structured output, and remembers", async () => {
    const model = scriptedModel({
      script: [
        rejection({
          status: 400,
          message: "response_format json_schema is not supported with this model",
        }),
        rejection({
          status: 400,
          message: "'response_format' of type 'json_object' is not supported",
        }),
        '{"opinions": ["a"]}',
        '{"opinions": ["b"]}',
      ],
    });
    const judge = createJudge({ model });
    expect((await judge.generate(request)).text).toBe('{"opinions": ["a"]}');
    expect(judge.structuredOutputMode).toBe("text");
    expect((await judge.generate(request)).text).toBe('{"opinions": ["b"]}');
    expect(responseFormats(model)).toEqual([
      { type: "json", schema: request.jsonSchema, name: "answer" },
      { type: "json" },
      { type: "text" },
      { type: "text" },
    ]);
  });

  it("starts later calls at JSON mode when JSON mode was what worked", async () => {
    const model = scriptedModel({
      script: [
        rejection({ status: 422, message: "structured outputs are not supported" }),
        "{}",
        "{}",
      ],
    });
    const judge = createJudge({ model });
    await judge.generate(request);
    await judge.generate(request);
    expect(responseFormats(model)).toEqual([
      { type: "json", schema: request.jsonSchema, name: "answer" },
      { type: "json" },
      { type: "json" },
    ]);
  });

  it("throws other provider errors as they are, without stepping down", async () => {
    const error = rejection({
      status: 400,
      message: "context_length_exceeded: the prompt is too long",
    });
    const model = scriptedModel({ script: [error] });
    const judge = createJudge({ model });
    await expect(judge.generate(request)).rejects.toBe(error);
    expect(judge.structuredOutputMode).toBe("json-schema");
    const serverError = new APICallError({
      message: "json_schema backend exploded",
      url: "https://api.example.test",
      requestBodyValues: {},
      statusCode: 500,
    });
    await expect(
      createJudge({ model: scriptedModel({ script: [serverError] }) }).generate(request),
    ).rejects.toBe(serverError);
  });

  it("omits temperature for reasoning models and honours an explicit one", async () => {
    for (const modelId of ["o3", "o4-mini", "gpt-5-mini", "o1"]) {
      const model = scriptedModel({ modelId, script: ["{}"] });
      await createJudge({ model }).generate(request);
      expect(model.doGenerateCalls[0]?.temperature).toBeUndefined();
    }
    const model = scriptedModel({ script: ["{}", "{}"] });
    await createJudge({ model, temperature: 0.7 }).generate(request);
    await createJudge({ model, temperature: null }).generate(request);
    expect(model.doGenerateCalls.map((call) => call.temperature)).toEqual([0.7, undefined]);
  });

  it("retries once without temperature when the provider rejects it, and remembers", async () => {
    const model = scriptedModel({
      script: [
        rejection({
          status: 400,
          message: "Unsupported parameter: 'temperature' is not supported with this model.",
        }),
        "{}",
        "{}",
      ],
    });
    const judge = createJudge({ model });
    await judge.generate(request);
    await judge.generate(request);
    expect(model.doGenerateCalls.map((call) => call.temperature)).toEqual([
      0,
      undefined,
      undefined,
    ]);
    expect(judge.temperature).toBeUndefined();
    expect(judge.structuredOutputMode).toBe("json-schema");
  });

  it("returns usage and the cost from the price table, or no cost when the price is unknown", async () => {
    const priced = await createJudge({ model: scriptedModel({ script: ["{}"] }) }).generate(
      request,
    );
    expect(priced.usage).toEqual({ inputTokens: 100, outputTokens: 20 });
    expect(priced.costUsd).toBeCloseTo((100 * 2 + 20 * 8) / 1e6, 12);
    const unknown = await createJudge({
      model: scriptedModel({ modelId: "my-finetune", script: ["{}"] }),
    }).generate(request);
    expect(unknown.usage).toEqual({ inputTokens: 100, outputTokens: 20 });
    expect(unknown.costUsd).toBeUndefined();
    const overridden = await createJudge({
      model: scriptedModel({ modelId: "my-finetune", script: ["{}"] }),
      prices: { "my-finetune": { inputPerMillion: 10, outputPerMillion: 0 } },
    }).generate(request);
    expect(overridden.costUsd).toBeCloseTo(0.001, 12);
  });

  it("returns bad JSON as raw text instead of throwing", async () => {
    const raw = 'Sure! Here you go: {"opinions": ["a",] ';
    const output = await createJudge({ model: scriptedModel({ script: [raw] }) }).generate(request);
    expect(output.text).toBe(raw);
  });

  it("sends the prompt, then each image after its [image N]: label", async () => {
    const png = pngWith(0, 0);
    const model = scriptedModel({ script: ["{}"] });
    await createJudge({ model }).generate({
      ...request,
      prompt: "Describe [image 1] and [image 2].",
      images: [image(png), image("https://example.test/cat.jpg", { mediaType: "image/jpeg" })],
    });
    const message = model.doGenerateCalls[0]?.prompt[0];
    expect(message?.role).toBe("user");
    const content = message?.role === "user" ? message.content : [];
    expect(
      content.map((part) => (part.type === "text" ? part.text : `file:${part.mediaType}`)),
    ).toEqual([
      "Describe [image 1] and [image 2].",
      "[image 1]:",
      "file:image/png",
      "[image 2]:",
      "file:image/jpeg",
    ]);
    const [, , bytesPart, , urlPart] = content;
    expect(bytesPart?.type === "file" && bytesPart.data).toMatchObject({ type: "data" });
    expect(urlPart?.type === "file" && urlPart.data).toMatchObject({ type: "url" });
  });

  it("passes the request's signal to the model", async () => {
    const controller = new AbortController();
    const model = scriptedModel({ script: ["{}"] });
    await createJudge({ model }).generate({ ...request, signal: controller.signal });
    const signal = model.doGenerateCalls[0]?.abortSignal;
    expect(signal).toBeDefined();
    controller.abort();
    expect(signal?.aborted).toBe(true);
  });
});
