import { inspect } from "node:util";
import { APICallError } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatasetFileError } from "../dataset/dataset-file-error.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { cleanErrorCause } from "./clean-error-cause.ts";
import {
  ConfigError,
  type EvalError,
  JudgeCallError,
  JudgeOutputError,
  MissingTestCaseParamsError,
  StoreError,
} from "./index.ts";

// Two keys a provider echoes: one in a known pattern, one that only its value identifies.
const skKey = "sk-proj-N4bq7Vw2Lr8Xe5Ty1Ui0Op3As6Df9Gh";
const plainKey = "Zq8vLr2mXw4Tn6Pb0Hc5Jd7Kf9Gs1Ay3UeQw8Rt";
const echo = `key ${plainKey} and ${skKey}`;

/** What the AI SDK throws on an error reply: request, headers and body included. */
function providerError(): APICallError {
  return new APICallError({
    message: `Incorrect API key provided: ${plainKey}`,
    url: `https://api.example.com/v1/responses?key=${plainKey}`,
    requestBodyValues: { model: "gpt-4.1", input: echo },
    statusCode: 401,
    responseHeaders: { "x-echoed-key": plainKey, authorization: `Bearer ${skKey}` },
    responseBody: JSON.stringify({ error: { message: echo, code: plainKey } }),
    data: { error: { message: echo } },
  });
}

const errors: Array<[string, () => EvalError]> = [
  ["ConfigError", () => new ConfigError(`bad ${echo}`, { cause: providerError() })],
  ["StoreError", () => new StoreError(`bad ${echo}`, { cause: new Error(echo) })],
  [
    "JudgeCallError",
    () =>
      new JudgeCallError({
        message: `failed: ${echo}`,
        status: 401,
        retryable: false,
        providerCode: plainKey,
        cause: providerError(),
      }),
  ],
  [
    "JudgeCallError.afterAttempts",
    () =>
      new JudgeCallError({
        message: `failed: ${echo}`,
        status: 500,
        retryable: true,
        cause: providerError(),
      }).afterAttempts(3),
  ],
  [
    "JudgeOutputError",
    () =>
      new JudgeOutputError({
        metric: "Toxicity",
        step: "generateVerdicts",
        rawText: `{"verdicts": "${echo}"`,
        problem: "cut off",
        cause: { body: echo, nested: { headers: { key: plainKey } } },
      }),
  ],
  [
    "MissingTestCaseParamsError",
    () => new MissingTestCaseParamsError({ metric: "Bias", field: "input", testCase: plainKey }),
  ],
  [
    "DatasetFileError",
    () =>
      new DatasetFileError({
        path: "goldens.csv",
        line: 3,
        item: 2,
        problem: `bad cell ${echo}`,
        cause: echo,
      }),
  ],
];

describe("verdict errors with echoed secrets", () => {
  let forget: () => void = () => {};
  beforeAll(() => {
    forget = registerSecretValues([plainKey]);
  });
  afterAll(() => forget());

  it.each(errors)("%s prints no secret however it is printed", (_name, make) => {
    const error = make();
    const printed = [
      error.message,
      String(error),
      error.stack ?? "",
      inspect(error, { depth: 20, showHidden: true }),
      JSON.stringify(error),
      JSON.stringify(error.cause) ?? "",
      inspect(error.cause, { depth: 20, showHidden: true }),
    ].join("\n");
    expect(printed).not.toContain(plainKey);
    expect(printed).not.toContain(skKey);
  });

  it("keeps of the provider's error only its name, message, status, code and stack", () => {
    const error = new JudgeCallError({
      message: "failed",
      status: 401,
      retryable: false,
      cause: providerError(),
    });
    const cause = error.cause as Error & Record<string, unknown>;
    expect(cause).toBeInstanceOf(Error);
    expect(cause).not.toBeInstanceOf(APICallError);
    expect(cause.name).toBe("AI_APICallError");
    expect(cause.message).toBe("Incorrect API key provided: ***");
    expect(cause.status).toBe(401);
    for (const field of ["requestBodyValues", "responseHeaders", "responseBody", "data", "url"]) {
      expect(cause).not.toHaveProperty(field);
    }
  });

  it("masks the fields subclasses add", () => {
    const output = errors.find(([name]) => name === "JudgeOutputError")?.[1]() as JudgeOutputError;
    expect(output.rawText).toBe('{"verdicts": "key *** and ***"');
    const call = errors.find(([name]) => name === "JudgeCallError")?.[1]() as JudgeCallError;
    expect(call.providerCode).toBe("***");
  });
});

describe("cleanErrorCause", () => {
  it.each([
    ["a string", `said ${skKey}`, `said ***`],
    ["a number", 42, 42],
    ["null", null, null],
  ])("masks or keeps %s", (_what, cause, expected) => {
    expect(cleanErrorCause(cause)).toEqual(expected);
  });

  it("cleans a chain of causes and keeps a verdict error as it is", () => {
    const inner = new StoreError("disk full");
    const outer = new Error(`wrapped ${skKey}`, {
      cause: new TypeError("fetch failed", { cause: inner }),
    });
    const cleaned = cleanErrorCause(outer) as Error;
    expect(cleaned.message).toBe("wrapped ***");
    expect((cleaned.cause as Error).name).toBe("TypeError");
    expect((cleaned.cause as Error).cause).toBe(inner);
    expect(cleanErrorCause(cleaned)).toBe(cleaned);
  });

  it("survives a cause whose fields throw when read", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no");
        },
      },
    );
    expect(cleanErrorCause(hostile)).toMatchObject({ name: "Error", message: "" });
  });
});
