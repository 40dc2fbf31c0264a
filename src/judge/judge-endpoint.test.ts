import { createAnthropic } from "@ai-sdk/anthropic";
import { createAzure } from "@ai-sdk/azure";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { describe, expect, it } from "vitest";
import { createJudge } from "./ai-sdk-judge.ts";
import {
  DEFAULT_JUDGE_ENDPOINTS,
  judgeEndpoint,
  languageModelEndpoint,
  normalizeJudgeEndpoint,
} from "./judge-endpoint.ts";

describe("normalizeJudgeEndpoint", () => {
  it.each([
    ["https://api.openai.com/v1", "https://api.openai.com/v1"],
    ["https://API.OpenAI.com:443/v1/", "https://api.openai.com/v1"],
    ["http://127.0.0.1:11434/v1//", "http://127.0.0.1:11434/v1"],
    ["https://me:pw@gateway.example.com/v1", "https://gateway.example.com/v1"],
    [
      "https://gateway.example.com/openai?api-key=k&api-version=1#x",
      "https://gateway.example.com/openai",
    ],
    ["  https://gateway.example.com  ", "https://gateway.example.com"],
    ["cluster-a", "cluster-a"],
    ["me:pw@cluster-a/judge?token=k", "cluster-a/judge"],
  ])("reads %j as %j", (given, expected) => {
    expect(normalizeJudgeEndpoint(given)).toBe(expected);
  });

  it("gives null for an empty endpoint", () => {
    expect(normalizeJudgeEndpoint("  ")).toBeNull();
  });
});

describe("languageModelEndpoint", () => {
  it("reads the base URL of each provider's models", () => {
    const apiKey = "sk-test";
    expect(languageModelEndpoint(createOpenAI({ apiKey })("gpt-4.1"))).toBe(
      "https://api.openai.com/v1",
    );
    expect(
      languageModelEndpoint(
        createOpenAI({ apiKey, baseURL: "http://127.0.0.1:8000/v1/" }).chat("gpt-4.1"),
      ),
    ).toBe("http://127.0.0.1:8000/v1");
    expect(languageModelEndpoint(createAnthropic({ apiKey })("claude-sonnet-4-5"))).toBe(
      "https://api.anthropic.com/v1",
    );
    expect(
      languageModelEndpoint(
        createGoogleGenerativeAI({ apiKey, baseURL: "https://proxy.example.com/google" })(
          "gemini-2.5-flash",
        ),
      ),
    ).toBe("https://proxy.example.com/google");
    // Azure's URL carries the API version as a query: not part of where the judge lives.
    expect(languageModelEndpoint(createAzure({ apiKey, resourceName: "team-a" })("judge"))).toBe(
      "https://team-a.openai.azure.com/openai/v1",
    );
  });

  it("says nothing for a model whose provider does not say", () => {
    expect(languageModelEndpoint({ provider: "x", modelId: "y" })).toBeNull();
    const lazy = {
      config: {
        url: () => {
          throw new Error("no resource name yet");
        },
      },
    };
    expect(languageModelEndpoint(lazy)).toBeNull();
  });
});

describe("judgeEndpoint", () => {
  it("is a judge's own endpoint, normalised, and the model's for a judge made from one", () => {
    const custom = {
      name: "my-judge",
      endpoint: "https://me:pw@judge.example.com/v1/",
      generate: async () => "{}",
    };
    expect(judgeEndpoint(custom)).toBe("https://judge.example.com/v1");
    expect(judgeEndpoint({ name: "my-judge", generate: async () => "{}" })).toBeNull();
    const judge = createJudge({
      model: createOpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1" })("gpt-4.1"),
    });
    expect(judgeEndpoint(judge)).toBe("http://127.0.0.1:9/v1");
  });

  it("counts the providers' own endpoints as the defaults", () => {
    expect([...DEFAULT_JUDGE_ENDPOINTS].sort()).toEqual([
      "http://127.0.0.1:11434/v1",
      "https://api.anthropic.com/v1",
      "https://api.openai.com/v1",
      "https://generativelanguage.googleapis.com/v1beta",
    ]);
  });
});
