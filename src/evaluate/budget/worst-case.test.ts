import { describe, expect, it } from "vitest";
import { z } from "zod";
import { spentBy, worstCaseOf } from "./worst-case.ts";

const schema = z.object({ reason: z.string() });
const jsonSchema = z.toJSONSchema(schema);
const price = { inputPerMillion: 2, outputPerMillion: 8 };

describe("worstCaseOf", () => {
  it("reserves a prompt at its UTF-8 bytes, whatever the tokenizer, and caps the answer it sends", () => {
    const prompt = "Évalue ce texte : « très bien » 😀 ".repeat(100);
    const worst = worstCaseOf({ request: { prompt, schema, jsonSchema }, price, factor: 1 });
    const bytes = Buffer.byteLength(prompt, "utf8");
    expect(worst.maxOutputTokens).toBe(2 * Math.ceil(prompt.length / 4));
    expect(worst.amount.tokens).toBeGreaterThanOrEqual(bytes + worst.maxOutputTokens);
    const input = worst.amount.tokens - worst.maxOutputTokens;
    expect(worst.amount.costUsd).toBeCloseTo((input * 2 + worst.maxOutputTokens * 8) / 1e6, 12);
    const batched = worstCaseOf({ request: { prompt, schema, jsonSchema }, price, factor: 0.5 });
    expect(batched.amount.costUsd).toBeCloseTo(worst.amount.costUsd / 2, 12);
  });

  it("gives a short prompt's answer at least 1,024 tokens, and counts its images", () => {
    const image = {
      type: "image" as const,
      source: { kind: "url" as const, url: "https://example.com/a.png" },
    };
    const worst = worstCaseOf({
      request: { prompt: "Hi [image 1]", images: [image as never], schema, jsonSchema },
      price: null,
      factor: 1,
    });
    expect(worst.maxOutputTokens).toBe(1_024);
    expect(worst.amount.tokens).toBeGreaterThan(2_500 + 1_024);
    expect(worst.amount.costUsd).toBe(0);
  });
});

describe("spentBy", () => {
  const reserved = { costUsd: 0.05, tokens: 5_000 };
  it("takes the answer's reported cost and usage", () => {
    expect(
      spentBy({
        answer: { text: "{}", usage: { inputTokens: 100, outputTokens: 20 }, costUsd: 0.001 },
        reserved,
        price,
        factor: 1,
      }),
    ).toEqual({ costUsd: 0.001, tokens: 120 });
  });

  it("prices the usage when the judge gives no cost, and counts the unknown at the reservation", () => {
    expect(
      spentBy({
        answer: { text: "{}", usage: { inputTokens: 1_000, outputTokens: 100 } },
        reserved,
        price,
        factor: 0.5,
      }),
    ).toEqual({ costUsd: (1_000 * 2 + 100 * 8) / 1e6 / 2, tokens: 1_100 });
    expect(spentBy({ answer: "{}", reserved, price, factor: 1 })).toEqual(reserved);
  });
});
