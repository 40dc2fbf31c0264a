import { describe, expect, it } from "vitest";
import { readOpenAILogprobs, takesOpenAILogprobs } from "./openai-logprobs.ts";

// `providerMetadata.openai.logprobs` as @ai-sdk/openai 4 hands them on from each API.
const chatLogprobs = [
  {
    token: "7",
    logprob: -0.3,
    top_logprobs: [
      { token: "7", logprob: -0.3 },
      { token: "8", logprob: -1.5 },
    ],
  },
  { token: "}", logprob: 0, top_logprobs: [{ token: "}", logprob: 0 }] },
];
const responsesLogprobs = [
  [{ token: '{"', logprob: 0, top_logprobs: [{ token: '{"', logprob: 0 }] }],
  [
    {
      token: "7",
      logprob: -0.3,
      top_logprobs: [
        { token: "7", logprob: -0.3 },
        { token: "8", logprob: -1.5 },
      ],
    },
  ],
];

describe("readOpenAILogprobs", () => {
  it("normalises Chat Completions' one array of tokens", () => {
    expect(readOpenAILogprobs({ openai: { logprobs: chatLogprobs } })).toEqual([
      {
        token: "7",
        logprob: -0.3,
        topLogprobs: [
          { token: "7", logprob: -0.3 },
          { token: "8", logprob: -1.5 },
        ],
      },
      { token: "}", logprob: 0, topLogprobs: [{ token: "}", logprob: 0 }] },
    ]);
  });

  it("joins the Responses API's arrays, one per content part, in order", () => {
    expect(
      readOpenAILogprobs({ openai: { responseId: "resp_1", logprobs: responsesLogprobs } }),
    ).toEqual([
      { token: '{"', logprob: 0, topLogprobs: [{ token: '{"', logprob: 0 }] },
      {
        token: "7",
        logprob: -0.3,
        topLogprobs: [
          { token: "7", logprob: -0.3 },
          { token: "8", logprob: -1.5 },
        ],
      },
    ]);
  });

  it("reads Azure's Responses metadata, kept under azure", () => {
    expect(readOpenAILogprobs({ azure: { logprobs: responsesLogprobs } })?.[1]?.token).toBe("7");
  });

  it("gives none when the metadata has none, is empty or is not well formed", () => {
    expect(readOpenAILogprobs(undefined)).toBeUndefined();
    expect(readOpenAILogprobs({ openai: { responseId: "resp_1" } })).toBeUndefined();
    expect(readOpenAILogprobs({ anthropic: { logprobs: chatLogprobs } })).toBeUndefined();
    expect(readOpenAILogprobs({ openai: { logprobs: [] } })).toBeUndefined();
    expect(readOpenAILogprobs({ openai: { logprobs: [[]] } })).toBeUndefined();
    expect(
      readOpenAILogprobs({ openai: { logprobs: [{ token: "7", logprob: "-0.3" }] } }),
    ).toBeUndefined();
    expect(
      readOpenAILogprobs({
        openai: { logprobs: [{ token: "7", logprob: -0.3, top_logprobs: [{ token: 7 }] }] },
      }),
    ).toBeUndefined();
  });

  it("takes a token without candidates (Chat's logprobs: true alone) as having none", () => {
    expect(readOpenAILogprobs({ openai: { logprobs: [{ token: "7", logprob: -0.3 }] } })).toEqual([
      { token: "7", logprob: -0.3, topLogprobs: [] },
    ]);
  });
});

describe("takesOpenAILogprobs", () => {
  it("is true for OpenAI's and Azure's models, false for other providers", () => {
    expect(takesOpenAILogprobs({ provider: "openai.responses" })).toBe(true);
    expect(takesOpenAILogprobs({ provider: "openai.chat" })).toBe(true);
    expect(takesOpenAILogprobs({ provider: "azure.chat" })).toBe(true);
    expect(takesOpenAILogprobs({ provider: "anthropic.messages" })).toBe(false);
    expect(takesOpenAILogprobs({ provider: "google.generative-ai" })).toBe(false);
    expect(takesOpenAILogprobs({ provider: "ollama.chat" })).toBe(false);
  });
});
