import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
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
import type {
  evaluationResultSchema,
  evaluationSummarySchema,
  judgeSpendingSchema,
  metricDataObject,
  metricSummaryObject,
  resultImageSchema,
  spanRecordSchema,
  testCaseRecordSchema,
  testResultSchema,
  traceRecordSchema,
  trialResultSchema,
} from "./result-schema.ts";
import type { SpanRecord, TestCaseRecord, TraceRecord } from "./trace-record.ts";

describe("the JSON report schema", () => {
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
