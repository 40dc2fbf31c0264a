import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { writeProjectConfig } from "../config/project-config.ts";
import { ConfigError } from "../errors/config-error.ts";
import { AiSdkJudge } from "./ai-sdk-judge.ts";
import type { JudgeModel, JudgeRequest } from "./judge-model.ts";
import { resolveJudge, resolveModelSpec } from "./resolve-model.ts";

const modelOf = (judge: JudgeModel) =>
  (judge as AiSdkJudge).model as { provider: string; modelId: string };

describe("resolveJudge", () => {
  it("defaults to VERDICT_MODEL, then gpt-4.1 on OpenAI's Responses API", async () => {
    // An empty home: a model persisted in the repository's own .verdict/ must not leak in.
    const home = mkdtempSync(path.join(tmpdir(), "verdict-no-config-"));
    const judge = await resolveJudge({ env: { OPENAI_API_KEY: "sk-test", VERDICT_HOME: home } });
    rmSync(home, { recursive: true, force: true });
    expect(judge).toBeInstanceOf(AiSdkJudge);
    expect(judge.name).toBe("openai:gpt-4.1");
    expect(modelOf(judge)).toMatchObject({ provider: "openai.responses", modelId: "gpt-4.1" });
    const fromEnv = await resolveJudge({
      env: { VERDICT_MODEL: "openai:gpt-4.1-mini", OPENAI_API_KEY: "sk-test" },
    });
    expect(fromEnv.name).toBe("openai:gpt-4.1-mini");
  });

  it("falls back to the model persisted by set-model, after the option and VERDICT_MODEL", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "verdict-home-"));
    try {
      const keys = { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "k" };
      const env = { VERDICT_HOME: home, ...keys };
      expect(resolveModelSpec({ env })).toEqual({ model: "gpt-4.1", source: "default" });
      writeProjectConfig({ env, config: { model: "anthropic:claude-sonnet-4-5" } });
      expect((await resolveJudge({ env })).name).toBe("anthropic:claude-sonnet-4-5");
      expect(resolveModelSpec({ env })).toEqual({
        model: "anthropic:claude-sonnet-4-5",
        source: "config file",
      });
      const withVariable = { ...env, VERDICT_MODEL: "gpt-4.1-mini" };
      expect((await resolveJudge({ env: withVariable })).name).toBe("openai:gpt-4.1-mini");
      expect(resolveModelSpec({ env: withVariable }).source).toBe("env");
      expect((await resolveJudge({ model: "gpt-4.1-nano", env: withVariable })).name).toBe(
        "openai:gpt-4.1-nano",
      );
      // A relative VERDICT_HOME is found from cwd.
      const relative = { VERDICT_HOME: path.basename(home), ...keys };
      expect((await resolveJudge({ env: relative, cwd: path.dirname(home) })).name).toBe(
        "anthropic:claude-sonnet-4-5",
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("returns a JudgeModel as is and wraps an AI SDK language model", async () => {
    const custom: JudgeModel = { name: "mine", generate: async () => "{}" };
    expect(await resolveJudge({ model: custom, env: {} })).toBe(custom);
    const model = new MockLanguageModelV4({
      provider: "anthropic.messages",
      modelId: "claude-haiku-4-5",
    });
    const wrapped = await resolveJudge({ model, env: {} });
    expect(wrapped).toBeInstanceOf(AiSdkJudge);
    expect(wrapped.name).toBe("anthropic:claude-haiku-4-5");
  });

  it("creates Anthropic, Google and Azure models from the optional packages with keys from env", async () => {
    const anthropic = await resolveJudge({
      model: "anthropic:claude-sonnet-4-5",
      env: { ANTHROPIC_API_KEY: "k" },
    });
    expect(anthropic.name).toBe("anthropic:claude-sonnet-4-5");
    expect(modelOf(anthropic)).toMatchObject({
      provider: "anthropic.messages",
      modelId: "claude-sonnet-4-5",
    });
    const google = await resolveJudge({
      model: "google:gemini-2.5-flash",
      env: { GOOGLE_GENERATIVE_AI_API_KEY: "k" },
    });
    expect(modelOf(google)).toMatchObject({
      provider: "google.generative-ai",
      modelId: "gemini-2.5-flash",
    });
    const azure = await resolveJudge({
      model: "azure:my-deployment",
      env: { AZURE_API_KEY: "k", AZURE_RESOURCE_NAME: "res" },
    });
    expect(azure.name).toBe("azure:my-deployment");
    expect(modelOf(azure).provider).toMatch(/^azure\./);
  });

  it("says which variable to set when a key is missing, without printing any key", async () => {
    await expect(resolveJudge({ model: "openai:gpt-4.1", env: {} })).rejects.toThrow(
      'Judge model "openai:gpt-4.1" needs OPENAI_API_KEY: set it in the environment or in .env / .env.local in the working directory, or pass another model (to try verdict without a key: VERDICT_MODEL=fake).',
    );
    await expect(
      resolveJudge({ model: "gpt-4.1", env: { OPENAI_API_KEY: "  " } }),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(
      resolveJudge({ model: "anthropic:claude-sonnet-4-5", env: { OPENAI_API_KEY: "sk-other" } }),
    ).rejects.toThrow('Judge model "anthropic:claude-sonnet-4-5" needs ANTHROPIC_API_KEY');
    await expect(resolveJudge({ model: "google:gemini-2.5-flash", env: {} })).rejects.toThrow(
      "GOOGLE_GENERATIVE_AI_API_KEY",
    );
    await expect(resolveJudge({ model: "azure:dep", env: { AZURE_API_KEY: "k" } })).rejects.toThrow(
      "AZURE_RESOURCE_NAME",
    );
  });

  it("says which package to install when an optional provider is missing", async () => {
    const importModule = async (specifier: string) => {
      throw Object.assign(new Error(`Cannot find package '${specifier}'`), {
        code: "ERR_MODULE_NOT_FOUND",
      });
    };
    const failing = resolveJudge({
      model: "anthropic:claude-sonnet-4-5",
      env: { ANTHROPIC_API_KEY: "k" },
      importModule,
    });
    await expect(failing).rejects.toBeInstanceOf(ConfigError);
    await expect(failing).rejects.toThrow(
      'Judge model "anthropic:claude-sonnet-4-5" needs the package @ai-sdk/anthropic: run npm install @ai-sdk/anthropic',
    );
    await expect(
      resolveJudge({
        model: "google:gemini-2.5-flash",
        env: { GOOGLE_GENERATIVE_AI_API_KEY: "k" },
        importModule,
      }),
    ).rejects.toThrow("run npm install @ai-sdk/google");
  });

  it("rejects an unknown provider, listing the supported ones, and an empty name", async () => {
    const unknown = resolveJudge({ model: "mistral:large", env: {} });
    await expect(unknown).rejects.toBeInstanceOf(ConfigError);
    await expect(unknown).rejects.toThrow(
      /unknown provider "mistral".*"openai:".*"anthropic:".*"google:".*"azure:".*"ollama:".*"openai-compatible:"/,
    );
    await expect(resolveJudge({ model: "  ", env: {} })).rejects.toThrow(/model name is empty/);
    await expect(resolveJudge({ model: "anthropic:", env: {} })).rejects.toThrow(
      'Judge model "anthropic:" has no model name: write it after the colon, e.g. "anthropic:claude-sonnet-4-5".',
    );
    await expect(resolveJudge({ model: "openai-compatible:qwen", env: {} })).rejects.toThrow(
      'Judge model "openai-compatible:qwen" needs VERDICT_BASE_URL',
    );
  });
});

describe("resolveJudge over HTTP (local servers on 127.0.0.1)", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function startChatServer() {
    const requests: Array<{
      url: string | undefined;
      headers: IncomingHttpHeaders;
      body: Record<string, unknown>;
    }> = [];
    server = createServer((incoming, outgoing) => {
      let text = "";
      incoming.on("data", (chunk) => {
        text += chunk;
      });
      incoming.on("end", () => {
        requests.push({ url: incoming.url, headers: incoming.headers, body: JSON.parse(text) });
        outgoing.writeHead(200, { "content-type": "application/json" });
        outgoing.end(
          JSON.stringify({
            id: "chatcmpl-1",
            object: "chat.completion",
            created: 1_700_000_000,
            model: "local",
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: '{"ok": true}' },
                finish_reason: "stop",
              },
            ],
            usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { baseURL: `http://127.0.0.1:${port}/v1`, requests };
  }

  const schema = z.object({ ok: z.boolean() });
  const request: JudgeRequest = {
    prompt: "Answer in JSON.",
    schema,
    jsonSchema: z.toJSONSchema(schema),
  };

  it("talks to Ollama's OpenAI-compatible endpoint at OLLAMA_BASE_URL, with user prices", async () => {
    const { baseURL, requests } = await startChatServer();
    const judge = await resolveJudge({
      model: "ollama:llama3.1:8b",
      env: { OLLAMA_BASE_URL: baseURL },
      prices: { "ollama:llama3.1:8b": { inputPerMillion: 1, outputPerMillion: 1 } },
    });
    expect(judge.name).toBe("ollama:llama3.1:8b");
    expect(judge.supportsImages).toBe(false);
    const output = await judge.generate(request);
    expect(output).toMatchObject({
      text: '{"ok": true}',
      usage: { inputTokens: 1000, outputTokens: 500 },
    });
    expect(typeof output === "object" && output.costUsd).toBeCloseTo(0.0015, 12);
    expect(requests[0]).toMatchObject({
      url: "/v1/chat/completions",
      body: { model: "llama3.1:8b" },
    });
  });

  it("talks to VERDICT_BASE_URL with VERDICT_API_KEY, and never sends OPENAI_API_KEY there", async () => {
    const { baseURL, requests } = await startChatServer();
    const withKey = await resolveJudge({
      model: "openai-compatible:qwen2.5",
      env: {
        VERDICT_BASE_URL: baseURL,
        VERDICT_API_KEY: "local-key",
        OPENAI_API_KEY: "sk-real-openai",
      },
    });
    expect(withKey.name).toBe("openai-compatible:qwen2.5");
    await withKey.generate(request);
    const withoutKey = await resolveJudge({
      model: "openai-compatible:qwen2.5",
      env: { VERDICT_BASE_URL: baseURL, OPENAI_API_KEY: "sk-real-openai" },
    });
    await withoutKey.generate(request);
    expect(requests.map((item) => item.headers.authorization)).toEqual([
      "Bearer local-key",
      "Bearer not-needed",
    ]);
  });

  it("sends OpenAI requests to OPENAI_BASE_URL with OPENAI_API_KEY from the given env", async () => {
    const { baseURL, requests } = await startChatServer();
    const judge = await resolveJudge({
      model: "gpt-4.1",
      env: { OPENAI_API_KEY: "sk-from-env", OPENAI_BASE_URL: baseURL },
    });
    // The server answers in the chat format, which the Responses API cannot read: only the request matters here.
    await judge.generate(request).catch(() => undefined);
    expect(requests[0]?.url).toBe("/v1/responses");
    expect(requests[0]?.headers.authorization).toBe("Bearer sk-from-env");
  });
});
