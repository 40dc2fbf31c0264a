import { describe, expect, it } from "vitest";
import { similarModelName } from "./similar-model-name.ts";

describe("similarModelName", () => {
  it.each([
    ["gtp-4.1", "gpt-4.1"],
    ["openai:gtp-4.1", "gpt-4.1"],
    ["gpt-41", "gpt-4.1"],
    ["GPT-4.1-MINI", null],
    ["claude-sonet-4-5", "claude-sonnet-4-5"],
    ["gemini-2.5-flsh", "gemini-2.5-flash"],
    ["gpt-4.1", null],
    ["my-fine-tune", null],
    ["", null],
  ])("%j → %j", (modelId, expected) => {
    expect(similarModelName({ modelId })).toBe(expected);
  });

  it("prefers the closest of the known models", () => {
    expect(similarModelName({ modelId: "abcd-e", known: ["abxy-e", "abcd-f"] })).toBe("abcd-f");
  });

  it("allows one edit only for short ids", () => {
    expect(similarModelName({ modelId: "o3x", known: ["o3"] })).toBe("o3");
    expect(similarModelName({ modelId: "x3y", known: ["o3"] })).toBeNull();
  });
});
