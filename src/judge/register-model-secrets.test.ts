import { randomBytes } from "node:crypto";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAzure } from "@ai-sdk/azure";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { describe, expect, it } from "vitest";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { createJudge } from "./ai-sdk-judge.ts";

// createJudge registers keys for the life of the process: random ones, which nothing else holds.
const randomKey = () => randomBytes(24).toString("base64url");

describe("createJudge registers the key its model sends", () => {
  it.each([
    ["OpenAI (Authorization: Bearer)", (apiKey: string) => createOpenAI({ apiKey })("gpt-4.1")],
    ["OpenAI chat", (apiKey: string) => createOpenAI({ apiKey }).chat("gpt-4.1")],
    ["Anthropic (x-api-key)", (apiKey: string) => createAnthropic({ apiKey })("claude-sonnet-4-5")],
    [
      "Google (x-goog-api-key)",
      (apiKey: string) => createGoogleGenerativeAI({ apiKey })("gemini-2.5-flash"),
    ],
    ["Azure (api-key)", (apiKey: string) => createAzure({ apiKey, resourceName: "r" })("d")],
    [
      "a custom auth header",
      (apiKey: string) =>
        createOpenAI({ apiKey: "placeholder", headers: { "X-Custom-Auth": apiKey } })("gpt-4.1"),
    ],
  ])("%s", (_provider, makeModel) => {
    const apiKey = randomKey();
    const text = `the server echoed ${apiKey}`;
    expect(redactSecretText(text, { env: {} })).toBe(text);
    createJudge({ model: makeModel(apiKey) });
    expect(redactSecretText(text, { env: {} })).toBe("the server echoed ***");
  });

  it("registers the values of the secrets option, and survives a model without headers", () => {
    const extra = randomKey();
    const model = createOpenAI({ apiKey: "unused-key-value" })("gpt-4.1");
    const config = (model as unknown as { config: object }).config;
    const headless = Object.assign(Object.create(model), {
      config: {
        ...config,
        headers: () => {
          throw new Error("no key yet");
        },
      },
    });
    createJudge({ model: headless, secrets: [extra] });
    expect(redactSecretText(`x ${extra}`, { env: {} })).toBe("x ***");
  });

  it("leaves the placeholder keys of keyless local servers alone", () => {
    createJudge({ model: createOpenAI({ apiKey: "not-needed", name: "local" }).chat("m") });
    expect(redactSecretText("a key is not-needed here", { env: {} })).toBe(
      "a key is not-needed here",
    );
  });
});
