import { describe, expect, it } from "vitest";
import {
  ConfigError,
  EvalError,
  JudgeCallError,
  JudgeOutputError,
  MissingTestCaseParamsError,
} from "./index.ts";

describe("errors", () => {
  it("MissingTestCaseParamsError names the metric, field, test case and what to do", () => {
    const error = new MissingTestCaseParamsError({
      metric: "Bias",
      field: "actualOutput",
      testCase: "q-12",
    });
    expect(error).toBeInstanceOf(EvalError);
    expect(error.name).toBe("MissingTestCaseParamsError");
    expect(error.code).toBe("MISSING_TEST_CASE_PARAMS");
    expect(error.message).toBe(
      'Metric "Bias" needs "actualOutput" on test case "q-12": add it, or skip this metric where it is missing: skipOnMissingParams: true in code, -s (--skip-on-missing-params) with `verdict test run`.',
    );
  });

  it("JudgeOutputError carries the raw text, metric and step", () => {
    const error = new JudgeOutputError({
      metric: "Toxicity",
      step: "generateVerdicts",
      rawText: "not json at all",
      problem: "no JSON object found",
    });
    expect(error.name).toBe("JudgeOutputError");
    expect(error.rawText).toBe("not json at all");
    expect(error.message).toContain('Metric "Toxicity", step "generateVerdicts"');
    expect(error.message).toContain("structured output");
    expect(error.message).toContain('"not json at all"');
  });

  it("JudgeCallError tells an exhausted quota apart", () => {
    const quota = new JudgeCallError({
      message: "quota",
      status: 429,
      retryable: false,
      providerCode: "insufficient_quota",
    });
    expect(quota.quotaExhausted).toBe(true);
    expect(new JudgeCallError({ message: "x", status: 429, retryable: true }).quotaExhausted).toBe(
      false,
    );
    expect(new ConfigError("x").code).toBe("CONFIG");
  });

  it("JudgeCallError.fromFailure writes the message from the failure, on one line and shortened", () => {
    const error = JudgeCallError.fromFailure({
      judgeName: "openai:gpt-4.1",
      failure: {
        kind: "bad-request",
        status: 400,
        retryable: false,
        retryAfterMs: null,
        providerCode: "invalid_value",
        providerMessage: `Invalid value\n  for 'max_tokens': ${"x".repeat(400)}.`,
        networkCode: null,
        url: null,
      },
      cause: "the cause",
    });
    expect(error).toMatchObject({ status: 400, retryable: false, providerCode: "invalid_value" });
    expect(error.cause).toBe("the cause");
    expect(error.message).toMatch(
      /^Judge "openai:gpt-4\.1": the provider rejected the request \(HTTP 400\): Invalid value for 'max_tokens': x+…\. Retrying will not help/,
    );
    expect(error.message).toContain(
      `${"x".repeat(300 - "Invalid value for 'max_tokens': ".length)}…`,
    );
    const gaveUp = error.afterAttempts(3);
    expect(gaveUp.message).toBe(`${error.message} Gave up after 3 attempts.`);
    expect(gaveUp).toMatchObject({ status: 400, providerCode: "invalid_value" });
  });
});
