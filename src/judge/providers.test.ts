import { describe, expect, it } from "vitest";
import { providerOfJudgeName, SUPPORTED_PROVIDERS } from "./providers.ts";

describe("PROVIDERS", () => {
  it("lists the model-string prefixes in SPEC order", () => {
    expect(SUPPORTED_PROVIDERS).toEqual([
      "openai",
      "anthropic",
      "google",
      "azure",
      "ollama",
      "openai-compatible",
    ]);
  });

  it.each([
    ["openai:gpt-4.1", "OPENAI_API_KEY"],
    ["anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"],
    ["google:gemini-2.5-flash", "GOOGLE_GENERATIVE_AI_API_KEY"],
    ["azure:my-deployment", "AZURE_API_KEY"],
    ["openai-compatible:my-model", "VERDICT_API_KEY"],
    ["ollama:llama3.1", null],
  ])("finds the provider of %s and its key variable", (judgeName, variable) => {
    expect(providerOfJudgeName(judgeName)?.apiKeyVariable).toBe(variable);
  });

  it("finds no provider for a custom judge name or an inherited property", () => {
    expect(providerOfJudgeName("my-judge")).toBeUndefined();
    expect(providerOfJudgeName("toString:x")).toBeUndefined();
  });
});
