import { describe, expect, it } from "vitest";
import {
  currentSecretMasker,
  isSecretKey,
  isSecretVariable,
  REDACTED,
  redactSecrets,
  redactSecretText,
  refreshEnvironmentSecrets,
} from "./redact-secrets.ts";
import { registerSecretValues } from "./secret-registry.ts";

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

describe("isSecretVariable", () => {
  it.each([
    "OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "CLIENT_SECRET",
    "DB_PASSWORD",
    "AZURE_KEY",
    "KEY",
    "PGPASSWORD",
  ])("treats %s as secret", (name) => expect(isSecretVariable(name)).toBe(true));

  it.each(["OPENAI_BASE_URL", "VERDICT_MODEL", "KEYBOARD", "MAX_TOKENS", "HOME"])(
    "treats %s as ordinary",
    (name) => expect(isSecretVariable(name)).toBe(false),
  );
});

describe("redactSecretText", () => {
  const noEnv = { env: {} };
  const google = `AIza${"B".repeat(35)}`;

  it.each([
    ["an OpenAI project key", "key sk-proj-abcdef123456 was rejected", "key *** was rejected"],
    [
      "a key the provider half-masked",
      "Incorrect API key: sk-proj-****abcd.",
      "Incorrect API key: ***.",
    ],
    ["an Anthropic key", "sk-ant-api03-abcdefghijklmnop", "***"],
    ["a short sk- key", "sk-abc123", "***"],
    ["a Google key", `key ${google} expired`, "key *** expired"],
    ["a Bearer token", "Authorization: Bearer eyJhbGciOi.payload", "Authorization: ***"],
    ["Basic credentials", "Basic dXNlcjpwYXNzd29yZA==", "***"],
    ["an Azure key (32 hex digits)", `key ${"a1".repeat(16)} denied`, "key *** denied"],
    ["an AWS key", "AKIAABCDEFGHIJKLMNOP", "***"],
    ["a GitHub token", `ghp_${"c".repeat(36)}`, "***"],
    ["a Slack token", "xoxb-1234567890-abcdef", "***"],
    [
      "an api-key query parameter",
      "GET /chat?api-version=1&api-key=abc123xyz",
      "GET /chat?api-version=1&api-key=***",
    ],
    [
      "Google's key query parameter",
      "https://x.test/v1?key=whatever-it-is&alt=sse",
      "https://x.test/v1?key=***&alt=sse",
    ],
    ["an access_token query parameter", "?access_token=t0k3n", "?access_token=***"],
    [
      "a secret field in JSON text",
      '{"apiKey": "my-own-format", "model": "m"}',
      '{"apiKey": "***", "model": "m"}',
    ],
    ["an x-api-key header", "x-api-key: 0123456789abcdefXYZ", "x-api-key: ***"],
    [
      "the password of a database URL",
      "could not reach postgres://team:hunter2@db.internal:5432/evals?sslmode=require",
      "could not reach postgres://team:***@db.internal:5432/evals?sslmode=require",
    ],
    [
      "a URL password with escaped characters",
      'store "postgresql://u:p%40ss%2Fw0rd@h/db"',
      'store "postgresql://u:***@h/db"',
    ],
    [
      "a password query parameter",
      "postgres://h/db?user=u&password=pw",
      "postgres://h/db?user=u&password=***",
    ],
  ])("masks %s", (_what, text, expected) => {
    expect(redactSecretText(text, noEnv)).toBe(expected);
  });

  it.each([
    ["prose with sk- words", "The skeptic asked a risky question; ask-me-anything; sk-short"],
    ["token counts", "maxTokens=1000 and ?max_tokens=50&model=gpt-4.1"],
    ["a plain URL", "https://api.openai.com/v1/responses?stream=true"],
    ["a sha256 digest", "a".repeat(64)],
    ["a UUID", "0f8fad5b-d9cb-469f-a165-70867728950e"],
    ["a URL with a user and no password", "postgres://team@db.internal:5432/evals"],
    ["a URL with a port", "http://localhost:8080/path"],
  ])("leaves %s alone", (_what, text) => {
    expect(redactSecretText(text, noEnv)).toBe(text);
  });

  it.each([
    [
      "a secret field with escaped quotes",
      '{"token": "a\\"b\\\\", "n": 1}',
      '{"token": "***", "n": 1}',
    ],
    [
      "a secret field quoted inside another field's value, as that value's text",
      '{"reason": "said \\"apiKey\\": \\"x\\"", "password": "p"}',
      '{"reason": "said \\"apiKey\\": \\"x\\"", "password": "***"}',
    ],
    ["an empty secret field", '{"apiKey": "", "secret": "s"}', '{"apiKey": "", "secret": "***"}'],
    ["an unterminated secret field", '{"apiKey": "abc', '{"apiKey": "abc'],
  ])("reads JSON fields: %s", (_what, text, expected) => {
    expect(redactSecretText(text, noEnv)).toBe(expected);
  });

  it("masks fields of text of millions of characters without overflowing the stack", () => {
    const huge = JSON.stringify({ actualOutput: "word ".repeat(2_400_000), apiKey: "k-1" });
    expect(huge.length).toBeGreaterThan(12_000_000);
    expect(redactSecretText(huge, noEnv)).toBe(huge.replace('"k-1"', '"***"'));
    const escapes = JSON.stringify({ reason: '"'.repeat(3_000_000), token: "t-1" });
    expect(redactSecretText(escapes, noEnv)).toBe(escapes.replace('"t-1"', '"***"'));
    const unterminated = `{"reason": "${'\\"'.repeat(3_000_000)}`;
    expect(redactSecretText(unterminated, noEnv)).toBe(unterminated);
  });

  it("masks the value of every secret variable of env, whatever its format", () => {
    const env = {
      MY_PROVIDER_API_KEY: "zz-unusual.format/42",
      SERVICE_TOKEN: " padded-token-value ",
      AZURE_KEY: "another-format-key",
      DB_PASSWORD: "short",
      OPENAI_BASE_URL: "https://proxy.example.com",
    };
    const text =
      "server said: key zz-unusual.format/42 (token padded-token-value, azure " +
      "another-format-key, password short) at https://proxy.example.com";
    expect(redactSecretText(text, { env })).toBe(
      `server said: key ${REDACTED} (token ${REDACTED}, azure ${REDACTED}, password short) at https://proxy.example.com`,
    );
  });

  it("masks a longer secret whole when a shorter one is part of it", () => {
    const env = { OUTER_TOKEN: "abcdefgh-ijklmnop", INNER_TOKEN: "abcdefgh" };
    expect(redactSecretText("x abcdefgh-ijklmnop y abcdefgh", { env })).toBe("x *** y ***");
  });

  it("reads process.env when no env is given", () => {
    const name = "VERDICT_TEST_REDACT_SECRET";
    process.env[name] = "value-from-process-env";
    refreshEnvironmentSecrets();
    try {
      expect(redactSecretText("echo value-from-process-env")).toBe("echo ***");
      expect(redactSecrets({ note: "echo value-from-process-env" })).toEqual({ note: "echo ***" });
    } finally {
      delete process.env[name];
      refreshEnvironmentSecrets();
    }
  });

  it("masks env secrets inside configurations too", () => {
    const env = { CUSTOM_API_KEY: "custom-format-12345" };
    expect(redactSecrets({ headers: { "x-custom": "custom-format-12345" } }, { env })).toEqual({
      headers: { "x-custom": "***" },
    });
  });
});

describe("registered secret values", () => {
  // Keys in no format the patterns know, each in a spelling a writer may give it.
  const plain = "Zq8vLr2mXw4Tn6Pb0Hc5Jd7Kf9Gs1Ay3UeQw8Rt";
  const withSymbols = 'k3y/with+plus=&"quote"<tag>';

  it.each([
    ["verbatim in prose", `echoed ${plain}.`, "echoed ***."],
    ["inside a JSON string", JSON.stringify({ note: `key ${withSymbols}` }), '{"note":"key ***"}'],
    ["escaped in HTML", `<td>k3y/with+plus=&amp;&quot;quote&quot;&lt;tag&gt;</td>`, "<td>***</td>"],
    ["encoded in a URL", `/v1?q=${encodeURIComponent(withSymbols)}`, "/v1?q=***"],
    ["twice on one line", `${plain}:${plain}`, "***:***"],
    ["in a header dump", `x-echoed-key: ${plain}`, "x-echoed-key: ***"],
  ])("masks a registered key %s", (_where, text, expected) => {
    const forget = registerSecretValues([plain, withSymbols]);
    try {
      expect(redactSecretText(text, { env: {} })).toBe(expected);
    } finally {
      forget();
    }
  });

  it("stops masking a value once it is removed, and ignores blank and short values", () => {
    const forget = registerSecretValues([plain, "   ", "short", undefined, null]);
    expect(redactSecretText(`a ${plain} short`, { env: {} })).toBe("a *** short");
    forget();
    expect(redactSecretText(`a ${plain} short`, { env: {} })).toBe(`a ${plain} short`);
  });

  it("keeps a value registered twice until both registrations are removed", () => {
    const first = registerSecretValues([plain]);
    const second = registerSecretValues([plain]);
    first();
    expect(redactSecretText(plain, { env: {} })).toBe("***");
    second();
    expect(redactSecretText(plain, { env: {} })).toBe(plain);
  });

  it("hands out one masker while what it masks stays the same, a new one when it changes", () => {
    const env: NodeJS.ProcessEnv = {};
    const before = currentSecretMasker({ env });
    expect(currentSecretMasker({ env })).toBe(before);
    const forget = registerSecretValues([plain]);
    try {
      const masker = currentSecretMasker({ env });
      expect(masker).not.toBe(before);
      expect(masker(`echoed ${plain}.`)).toBe(redactSecretText(`echoed ${plain}.`, { env }));
      expect(masker(`echoed ${plain}.`)).toBe("echoed ***.");
    } finally {
      forget();
    }
    expect(currentSecretMasker({ env })(plain)).toBe(plain);
  });

  it("masks registered values in values copied for storage", () => {
    const forget = registerSecretValues([plain]);
    try {
      expect(redactSecrets({ list: [`x${plain}y`], nested: { text: plain } }, { env: {} })).toEqual(
        { list: ["x***y"], nested: { text: "***" } },
      );
    } finally {
      forget();
    }
  });

  it("follows the environment as it changes", () => {
    const env: NodeJS.ProcessEnv = { MY_API_KEY: "first-value-123" };
    expect(redactSecretText("first-value-123 second-value-456", { env })).toBe(
      "*** second-value-456",
    );
    env.MY_API_KEY = "second-value-456";
    expect(redactSecretText("first-value-123 second-value-456", { env })).toBe(
      "first-value-123 ***",
    );
  });
});
