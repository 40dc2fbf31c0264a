import { describe, expect, it } from "vitest";
import { costOfUsage, DEFAULT_MODEL_PRICES, findModelPrice } from "./usage-and-cost.ts";

const priceOf = (modelId: string) => findModelPrice({ modelId });

describe("findModelPrice", () => {
  it("finds exact ids", () => {
    expect(priceOf("gpt-4.1")).toEqual({ inputPerMillion: 2, outputPerMillion: 8 });
    expect(priceOf("gpt-4.1-mini")).toEqual({ inputPerMillion: 0.4, outputPerMillion: 1.6 });
    expect(priceOf("claude-haiku-4-5")).toEqual({ inputPerMillion: 1, outputPerMillion: 5 });
    expect(priceOf("gemini-2.0-flash")).toEqual({ inputPerMillion: 0.1, outputPerMillion: 0.4 });
  });

  it("matches dated and channel versions to the longest priced id", () => {
    expect(priceOf("gpt-4.1-mini-2025-04-14")).toEqual(priceOf("gpt-4.1-mini"));
    expect(priceOf("gpt-4.1-2025-04-14")).toEqual(priceOf("gpt-4.1"));
    expect(priceOf("claude-sonnet-4-20250514")).toEqual({
      inputPerMillion: 3,
      outputPerMillion: 15,
    });
    expect(priceOf("claude-opus-4-1-20250805")).toEqual({
      inputPerMillion: 15,
      outputPerMillion: 75,
    });
    expect(priceOf("claude-3-5-haiku-latest")).toEqual({
      inputPerMillion: 0.8,
      outputPerMillion: 4,
    });
    expect(priceOf("gemini-2.5-flash-preview-05-20")).toEqual(priceOf("gemini-2.5-flash"));
    expect(priceOf("o4-mini-2025-04-16")).toEqual({ inputPerMillion: 1.1, outputPerMillion: 4.4 });
  });

  it("never prices a different model by a shorter id", () => {
    expect(priceOf("gpt-4o-mini")).toEqual({ inputPerMillion: 0.15, outputPerMillion: 0.6 });
    expect(priceOf("o3-mini")).toBeNull();
    expect(priceOf("gemini-2.5-flash-lite")).toBeNull();
    expect(priceOf("gpt-4.1-turbo")).toBeNull();
    expect(priceOf("llama3.1")).toBeNull();
  });

  it("strips a provider: or models/ prefix", () => {
    expect(priceOf("openai:gpt-5-mini")).toEqual({ inputPerMillion: 0.25, outputPerMillion: 2 });
    expect(priceOf("models/gemini-2.5-pro")).toEqual({
      inputPerMillion: 1.25,
      outputPerMillion: 10,
    });
    expect(priceOf("google:models/gemini-2.5-pro")).toEqual({
      inputPerMillion: 1.25,
      outputPerMillion: 10,
    });
  });

  it("lets user prices override and extend the table", () => {
    const prices = {
      "gpt-4.1": { inputPerMillion: 1, outputPerMillion: 4 },
      "ollama:llama3.1": { inputPerMillion: 0, outputPerMillion: 0 },
    };
    expect(findModelPrice({ modelId: "gpt-4.1-2025-04-14", prices })).toEqual({
      inputPerMillion: 1,
      outputPerMillion: 4,
    });
    expect(findModelPrice({ modelId: "ollama:llama3.1", prices })).toEqual({
      inputPerMillion: 0,
      outputPerMillion: 0,
    });
    expect(DEFAULT_MODEL_PRICES["gpt-4.1"]).toEqual({ inputPerMillion: 2, outputPerMillion: 8 });
    expect(Object.isFrozen(DEFAULT_MODEL_PRICES)).toBe(true);
  });
});

describe("costOfUsage", () => {
  it("prices input and output tokens per million", () => {
    const cost = costOfUsage({
      usage: { inputTokens: 1000, outputTokens: 500 },
      price: priceOf("gpt-4.1"),
    });
    expect(cost).toBeCloseTo(0.006, 12);
  });

  it("is null, never 0, when the usage or the price is unknown", () => {
    expect(costOfUsage({ usage: null, price: priceOf("gpt-4.1") })).toBeNull();
    expect(costOfUsage({ usage: { inputTokens: 10, outputTokens: 10 }, price: null })).toBeNull();
    expect(
      costOfUsage({
        usage: { inputTokens: Number.NaN, outputTokens: 10 },
        price: priceOf("gpt-4.1"),
      }),
    ).toBeNull();
    expect(
      costOfUsage({ usage: { inputTokens: 0, outputTokens: 0 }, price: priceOf("gpt-4.1") }),
    ).toBe(0);
  });
});
