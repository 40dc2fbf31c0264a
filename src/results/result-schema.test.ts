import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { metricData } from "../../test/fixtures/results.ts";
import type {
  EvaluationResult,
  EvaluationSummary,
  JudgeSpending,
  MetricSummary,
  ResultImage,
  TestResult,
  TrialResult,
} from "./evaluation-result.ts";
import type { MetricData } from "./metric-data.ts";
import {
  type evaluationResultSchema,
  type evaluationSummarySchema,
  type judgeSpendingSchema,
  type metricDataObject,
  metricDataSchema,
  type metricSummaryObject,
  type resultImageSchema,
  type spanRecordSchema,
  type testCaseRecordSchema,
  type testResultSchema,
  type traceRecordSchema,
  type trialResultSchema,
} from "./result-schema.ts";
import type { SpanRecord, TestCaseRecord, TraceRecord } from "./trace-record.ts";

describe("the JSON report schema", () => {
  // Checked by the compiler: `npm run typecheck` fails when a schema and its type drift apart.
  it("parses to exactly the result types, field for field", () => {
    expectTypeOf<z.output<typeof metricDataObject>>().toEqualTypeOf<MetricData>();
    expectTypeOf<z.output<typeof metricSummaryObject>>().toEqualTypeOf<MetricSummary>();
    expectTypeOf<z.output<typeof resultImageSchema>>().toEqualTypeOf<ResultImage>();
    expectTypeOf<z.output<typeof trialResultSchema>>().toEqualTypeOf<TrialResult>();
    expectTypeOf<z.output<typeof testCaseRecordSchema>>().toEqualTypeOf<TestCaseRecord>();
    expectTypeOf<z.output<typeof spanRecordSchema>>().toEqualTypeOf<SpanRecord>();
    expectTypeOf<z.output<typeof traceRecordSchema>>().toEqualTypeOf<TraceRecord>();
    expectTypeOf<z.output<typeof testResultSchema>>().toEqualTypeOf<TestResult>();
    expectTypeOf<z.output<typeof judgeSpendingSchema>>().toEqualTypeOf<JudgeSpending>();
    expectTypeOf<z.output<typeof evaluationSummarySchema>>().toEqualTypeOf<EvaluationSummary>();
    expectTypeOf<z.output<typeof evaluationResultSchema>>().toEqualTypeOf<EvaluationResult>();
  });
});

describe("results stored before lowerIsBetter existed", () => {
  const stored = (fields: Partial<ReturnType<typeof metricData>>) => {
    const { lowerIsBetter: _dropped, ...old } = metricData(fields);
    return metricDataSchema.parse(old);
  };

  it("take the direction from how a result off its threshold passed, for any metric", () => {
    expect(stored({ name: "Harm", score: 0.2, threshold: 0.5, success: true }).lowerIsBetter).toBe(
      true,
    );
    expect(stored({ name: "Harm", score: 0.8, threshold: 0.5, success: false }).lowerIsBetter).toBe(
      true,
    );
    expect(
      stored({ name: "Toxicity", score: 0.8, threshold: 0.5, success: true }).lowerIsBetter,
    ).toBe(false);
  });

  it("fall back on the built-in metric's name when the result cannot show it", () => {
    expect(
      stored({ name: "Toxicity", score: 0.5, threshold: 0.5, success: true }).lowerIsBetter,
    ).toBe(true);
    expect(
      stored({ name: "Span › Bias", score: null, success: false, error: "x" }).lowerIsBetter,
    ).toBe(true);
    expect(stored({ name: "Harm", score: 0.5, threshold: 0.5, success: true }).lowerIsBetter).toBe(
      false,
    );
  });
});
