import { describe, expect, it } from "vitest";
import { isSecretKey, redactSecrets } from "./redact-secrets.ts";

describe("redactSecrets", () => {
  it("replaces string values of keys that name a secret, at any depth", () => {
    const config = {
      model: "gpt-4.1",
      apiKey: "my-key",
      provider: { api_key: "x", "x-api-key": "y", headers: { Authorization: "z" } },
      env: { OPENAI_API_KEY: "a", ANTHROPIC_API_KEY: "b", GITHUB_TOKEN: "c", DB_PASSWORD: "d" },
      clientSecret: "e",
      judges: [{ name: "j", accessToken: "f" }],
    };
    expect(redactSecrets(config)).toEqual({
      model: "gpt-4.1",
      apiKey: "***",
      provider: { api_key: "***", "x-api-key": "***", headers: { Authorization: "***" } },
      env: {
        OPENAI_API_KEY: "***",
        ANTHROPIC_API_KEY: "***",
        GITHUB_TOKEN: "***",
        DB_PASSWORD: "***",
      },
      clientSecret: "***",
      judges: [{ name: "j", accessToken: "***" }],
    });
  });

  it("redacts every string inside an object held under a secret key", () => {
    expect(redactSecrets({ credentials: { user: "me", keys: ["k1", "k2"], ttl: 60 } })).toEqual({
      credentials: { user: "***", keys: ["***", "***"], ttl: 60 },
    });
  });

  it("keeps token counts and other numbers, and names that only contain a secret word", () => {
    const config = {
      maxTokens: 1000,
      inputTokens: 12,
      tokenizer: "o200k",
      apiKeyPresent: true,
      threshold: 0.5,
    };
    expect(redactSecrets(config)).toEqual(config);
  });

  it("redacts strings that look like credentials under any key", () => {
    expect(
      redactSecrets({
        note: "use sk-proj-abcdefghijklmnop1234 here",
        header: "Bearer eyJhbGciOiJIUzI1NiJ9.payload.signature",
        anthropic: "sk-ant-api03-abcdefghijklmnopqrstuvwx",
        google: `AIza${"A".repeat(35)}`,
        aws: "AKIAABCDEFGHIJKLMNOP",
        github: `ghp_${"a".repeat(36)}`,
        list: ["plain", "sk-abcdefghijklmnopqrstu"],
      }),
    ).toEqual({
      note: "use *** here",
      header: "***",
      anthropic: "***",
      google: "***",
      aws: "***",
      github: "***",
      list: ["plain", "***"],
    });
  });

  it("leaves ordinary text alone", () => {
    const text = "The skeptic asked a risky question; ask-me-anything; sk-short";
    expect(redactSecrets({ input: text })).toEqual({ input: text });
  });

  it("copies deeply and never modifies its input", () => {
    const input = {
      judge: { apiKey: "secret-value", name: "n" },
      list: [{ a: 1 }],
      at: new Date(0),
    };
    const output = redactSecrets(input);
    expect(input.judge.apiKey).toBe("secret-value");
    expect(output.list[0]).not.toBe(input.list[0]);
    expect(output.at).toEqual(new Date(0));
    expect(output.at).not.toBe(input.at);
  });

  it("turns a cycle into a marker instead of looping", () => {
    const looped: Record<string, unknown> = { name: "loop" };
    looped.self = looped;
    expect(redactSecrets(looped)).toEqual({ name: "loop", self: "[Circular]" });
  });

  it("passes primitives through", () => {
    expect(redactSecrets(42)).toBe(42);
    expect(redactSecrets(null)).toBeNull();
    expect(redactSecrets("Bearer abcdefghijkl")).toBe("***");
  });
});

describe("isSecretKey", () => {
  it.each([
    "apiKey",
    "APIKey",
    "api-key",
    "OPENAI_API_KEY",
    "x-auth-token",
    "password",
    "privateKey",
    "AWS_SECRET_ACCESS_KEY",
  ])("treats %s as secret", (key) => expect(isSecretKey(key)).toBe(true));

  it.each(["maxTokens", "tokenizer", "keyword", "model", "apiBase", "passRate"])(
    "treats %s as ordinary",
    (key) => expect(isSecretKey(key)).toBe(false),
  );
});
