import { createOpenAI } from "@ai-sdk/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createJudge } from "../judge/ai-sdk-judge.ts";
import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import { image } from "../test-case/image.ts";
import { judgeCacheKey } from "./judge-cache-key.ts";

const judge: JudgeModel = { name: "openai:gpt-4.1", generate: async () => "{}" };
const request: JudgeRequest = {
  prompt: "Judge this.",
  schema: z.object({ reason: z.string() }),
  jsonSchema: { type: "object", properties: { reason: { type: "string" } } },
};
const key = (
  changes: { judge?: JudgeModel; request?: Partial<JudgeRequest>; trial?: number } = {},
) =>
  judgeCacheKey({
    judge: changes.judge ?? judge,
    request: { ...request, ...changes.request },
    trial: changes.trial ?? 0,
  });

describe("judgeCacheKey", () => {
  it("is stable for the same request", () => {
    expect(key()).toBe(key());
    expect(key()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with everything that changes the answer", () => {
    const keys = [
      key(),
      key({ judge: { ...judge, name: "openai:gpt-4.1-mini" } }),
      key({ judge: Object.assign({ temperature: 0.7 }, judge) }),
      key({ request: { prompt: "Judge this!" } }),
      key({ request: { jsonSchema: { type: "object" } } }),
      key({ request: { images: [image("https://example.com/a.png")] } }),
      key({ request: { images: [image("https://example.com/b.png")] } }),
      key({ trial: 1 }),
      key({ request: { topLogprobs: 5 } }),
      key({ request: { topLogprobs: 20 } }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("keeps the key of a request that asks for no logprobs as it was", () => {
    // The key of `request` before topLogprobs existed: entries cached then are still found.
    expect(key()).toBe("ccf25831e7b2cb274e0b6eab31a2a702fbd16b682c37b12e24229a826c84e16e");
  });

  it("keys a generating model on all its settings, its system message included", () => {
    const generator = (settings: object) => ({ ...judge, cacheKeySettings: settings });
    const keys = [
      key(),
      key({ judge: generator({ temperature: 0, system: null }) }),
      key({ judge: generator({ temperature: 0, system: "Be brief." }) }),
      key({ judge: generator({ temperature: 0, system: "Be kind." }) }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(key({ judge: generator({ system: "Be brief." }) })).toBe(
      key({ judge: generator({ system: "Be brief." }) }),
    );
  });

  it("does not let one field run into the next", () => {
    const split = key({ judge: { ...judge, name: "ab" }, request: { prompt: "c" } });
    const joined = key({ judge: { ...judge, name: "a" }, request: { prompt: "bc" } });
    expect(split).not.toBe(joined);
  });

  describe("where the judge lives", () => {
    const openaiAt = (baseURL?: string) =>
      createJudge({
        model: createOpenAI({ apiKey: "sk-test", ...(baseURL ? { baseURL } : {}) })("gpt-4.1"),
      });
    const at = (endpoint: string) => ({ ...judge, endpoint });

    it("never gives the same model name at two endpoints the same key", () => {
      const keys = [
        key({ judge: openaiAt() }),
        key({ judge: openaiAt("http://127.0.0.1:8000/v1") }),
        key({ judge: openaiAt("http://127.0.0.1:8001/v1") }),
        key({ judge: openaiAt("https://gateway.example.com/openai/v1") }),
        key({
          judge: createJudge({
            model: createOpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:8000/v1" }).chat(
              "gpt-4.1",
            ),
          }),
        }),
      ];
      // The two judges at 127.0.0.1:8000 ask the same server the same thing, whatever the API.
      expect(new Set(keys).size).toBe(4);
      expect(keys[4]).toBe(keys[1]);
      expect(key({ judge: at("https://a.example/v1") })).not.toBe(
        key({ judge: at("https://b.example/v1") }),
      );
      expect(key({ judge: at("https://a.example/v1") })).not.toBe(key());
    });

    it("keys on the endpoint's origin and path only: never its credentials or query", () => {
      const plain = key({ judge: at("https://gateway.example.com/v1") });
      for (const endpoint of [
        "https://user:secret@gateway.example.com/v1",
        "https://GATEWAY.example.com:443/v1/",
        "https://gateway.example.com/v1?api-key=secret&api-version=2024-10-21",
        "https://gateway.example.com/v1#fragment",
      ]) {
        expect(key({ judge: at(endpoint) }), endpoint).toBe(plain);
      }
      expect(key({ judge: at("https://gateway.example.com/v2") })).not.toBe(plain);
      expect(key({ judge: at("http://gateway.example.com/v1") })).not.toBe(plain);
    });

    it("keeps the keys of judges at their provider's default endpoint, and of judges that say none", () => {
      // Computed before endpoints were keyed: existing caches of the default endpoint stay valid.
      expect(key({ judge: openaiAt() })).toBe(
        "63e324e940b734b74673559dca8b35f347747d3fe998617ee2e1df779e9c9500",
      );
      expect(key({ judge: openaiAt("https://api.openai.com/v1/") })).toBe(
        key({ judge: openaiAt() }),
      );
      expect(key()).toBe("ccf25831e7b2cb274e0b6eab31a2a702fbd16b682c37b12e24229a826c84e16e");
    });
  });
});
