import { describe, expect, it } from "vitest";
import { z } from "zod";
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
});
