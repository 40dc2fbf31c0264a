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
      'Metric "Bias" needs "actualOutput" on test case "q-12": add it, or pass skipOnMissingParams to skip this metric where it is missing.',
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
});
