import { z } from "zod";
import type { JudgeSpending, ResultImage, TrialResult } from "./evaluation-result.ts";
import type { JudgeCallRecord, MetricData, MetricStep } from "./metric-data.ts";
import { RUN_STATUSES } from "./run-status.ts";
import type {
  JsonValue,
  SpanRecord,
  SpanType,
  TestCaseRecord,
  TraceRecord,
} from "./trace-record.ts";

// The schemas mirror the types of this folder field by field; result-schema.test.ts checks
// at compile time that each parses to exactly its type, so neither can drift from the other.
// Unknown keys are dropped rather than rejected: a later writer of the same version may add
// fields. Fields added after results were first stored get defaults, so older stores and
// reports still read.

/** Metrics whose results from before `lowerIsBetter` existed were lower-is-better. */
const LEGACY_LOWER_IS_BETTER = /(^|› )(Toxicity|Bias)$/;

const savedSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number().nullable(),
});

/**
 * Results written before `lowerIsBetter` existed: a scored result off its threshold shows the
 * direction (it passed as `score <= threshold` or as `score >= threshold`); otherwise the
 * built-in metric's name tells it.
 */
function withLowerIsBetter(value: unknown): unknown {
  if (typeof value !== "object" || value === null || "lowerIsBetter" in value) return value;
  const { name, score, threshold, success, error } = value as Record<string, unknown>;
  const shown =
    typeof score === "number" &&
    typeof threshold === "number" &&
    typeof success === "boolean" &&
    error == null &&
    score !== threshold;
  const lowerIsBetter = shown
    ? success === score <= threshold
    : typeof name === "string" && LEGACY_LOWER_IS_BETTER.test(name);
  return { ...value, lowerIsBetter };
}

/** Whether a value is plain JSON (what JSON.parse gives), checked without copying it. */
function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value !== "object") return false;
  return Object.values(value).every(isJsonValue);
}

// User data (span inputs, outputs, metadata) is checked, never rebuilt: a rebuilt object would
// lose a key such as "__proto__", which JSON.parse keeps as an ordinary key.
const jsonValueSchema = z.custom<JsonValue>(isJsonValue, "expected a JSON value");
const jsonObjectSchema = z.custom<{ [key: string]: JsonValue }>(
  (value) =>
    typeof value === "object" && value !== null && !Array.isArray(value) && isJsonValue(value),
  "expected a JSON object",
);

export const metricStepSchema = z.object({
  label: z.string(),
  value: jsonValueSchema,
  flaggedVerdict: z.string().optional(),
}) satisfies z.ZodType<MetricStep>;

export const judgeCallRecordSchema = z.object({
  step: z.string(),
  model: z.string().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  costUsd: z.number().nullable(),
  latencyMs: z.number().nullable(),
  source: z.enum(["judge", "cache", "shared"]),
  promptHash: z.string().optional(),
  answerHash: z.string().optional(),
}) satisfies z.ZodType<JudgeCallRecord>;

/** {@link MetricData} as stored and reported. */
export const metricDataObject = z.object({
  name: z.string(),
  threshold: z.number().nullable(),
  success: z.boolean().nullable(),
  score: z.number().nullable(),
  reason: z.string().nullable(),
  strictMode: z.boolean(),
  lowerIsBetter: z.boolean(),
  evaluationModel: z.string().nullable(),
  error: z.string().nullable(),
  evaluationCost: z.number().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  verboseLogs: z.string(),
  judgeCalls: z.number(),
  cachedJudgeCalls: z.number(),
  sharedJudgeCalls: z.number().default(0),
  saved: savedSchema.optional(),
  steps: z.array(metricStepSchema).optional(),
  calls: z.array(judgeCallRecordSchema).optional(),
});

export const metricDataSchema = z.preprocess(withLowerIsBetter, metricDataObject);

export const testCaseRecordSchema = z.object({
  input: z.string(),
  actualOutput: z.string().nullable(),
  expectedOutput: z.string().nullable(),
  context: z.array(z.string()).nullable(),
  retrievalContext: z.array(z.string()).nullable(),
  toolsCalled: z.array(jsonValueSchema).nullable(),
  expectedTools: z.array(jsonValueSchema).nullable(),
}) satisfies z.ZodType<TestCaseRecord>;

const spanFields = {
  name: z.string(),
  status: z.enum(["ok", "errored"]),
  error: z.string().nullable(),
  input: jsonValueSchema,
  output: jsonValueSchema,
  startedAt: z.string(),
  metadata: jsonObjectSchema.nullable(),
  testCase: testCaseRecordSchema.nullable(),
  metricsData: z.array(metricDataSchema),
};

export const spanRecordSchema: z.ZodType<SpanRecord> = z.object({
  ...spanFields,
  type: z.string() as z.ZodType<SpanType>,
  durationMs: z.number().nullable(),
  get children() {
    return z.array(spanRecordSchema);
  },
});

export const traceRecordSchema: z.ZodType<TraceRecord> = z.object({
  ...spanFields,
  durationMs: z.number(),
  spans: z.array(spanRecordSchema),
});

export const resultImageSchema = z.object({
  field: z.enum(["input", "actualOutput", "expectedOutput"]),
  number: z.number().int().positive(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  kind: z.enum(["url", "file", "data-url", "bytes"]),
  label: z.string(),
  data: z.string().optional(),
}) satisfies z.ZodType<ResultImage>;

export const trialResultSchema = z.object({
  trial: z.number().int(),
  success: z.boolean().nullable(),
  metricsData: z.array(metricDataSchema),
}) satisfies z.ZodType<TrialResult>;

export const testResultSchema = z.object({
  name: z.string(),
  index: z.number().int().nonnegative(),
  success: z.boolean().nullable(),
  input: z.string(),
  actualOutput: z.string().nullable(),
  expectedOutput: z.string().nullable(),
  images: z.array(resultImageSchema).default([]),
  metricsData: z.array(metricDataSchema),
  trials: z.array(trialResultSchema),
  passedTrials: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative().optional(),
  trace: traceRecordSchema.optional(),
  file: z.string().optional(),
  line: z.number().int().positive().optional(),
  tags: z.array(z.string()).optional(),
  context: z.array(z.string()).optional(),
  retrievalContext: z.array(z.string()).optional(),
});

export const metricSummaryObject = z.object({
  name: z.string(),
  lowerIsBetter: z.boolean(),
  meanScore: z.number().nullable(),
  passRate: z.number().nullable(),
  meanScoreInterval: z.tuple([z.number(), z.number()]).nullable().optional(),
  passRateInterval: z.tuple([z.number(), z.number()]).nullable().optional(),
  passed: z.number(),
  failed: z.number(),
  errored: z.number(),
  scoreOnly: z.number(),
});

const metricSummarySchema = z.preprocess(withLowerIsBetter, metricSummaryObject);

const spendingFields = {
  judgeCalls: z.number(),
  cacheHits: z.number(),
  sharedCalls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number().nullable(),
  saved: z.object({
    judgeCalls: z.number(),
    inputTokens: z.number(),
    outputTokens: z.number(),
    costUsd: z.number().nullable(),
  }),
};

export const judgeSpendingSchema = z.object(spendingFields) satisfies z.ZodType<JudgeSpending>;

export const evaluationSummarySchema = z.object({
  ...spendingFields,
  status: z.enum(RUN_STATUSES),
  metrics: z.array(metricSummarySchema),
  testCases: z.object({
    total: z.number(),
    passed: z.number(),
    failed: z.number(),
    unscored: z.number(),
    errored: z.number().optional(),
  }),
  judges: z.array(z.string()).optional(),
  durationMs: z.number(),
  flakyCases: z
    .array(
      z.object({
        name: z.string(),
        position: z.number().int().positive(),
        passedTrials: z.number().int().nonnegative(),
        trials: z.number().int().positive(),
        passRateInterval: z.tuple([z.number(), z.number()]),
      }),
    )
    .optional(),
  fakeJudge: z.literal(true).optional(),
  budget: z
    .object({
      maxCostUsd: z.number().nullable(),
      maxTokens: z.number().nullable(),
      spentCostUsd: z.number(),
      spentTokens: z.number(),
    })
    .optional(),
});

export const evaluationResultSchema = z.object({
  testRunId: z.string(),
  identifier: z.string().nullable(),
  testResults: z.array(testResultSchema),
  summary: evaluationSummarySchema,
});
