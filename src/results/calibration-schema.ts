import { z } from "zod";
import { judgeSpendingSchema } from "./result-schema.ts";
import { RUN_STATUSES } from "./run-status.ts";

// Mirrors calibration-report.ts field by field (calibration-schema.test.ts checks that it
// parses to exactly the type). Unknown keys are dropped, as in result-schema.ts.

const interval = z.tuple([z.number(), z.number()]).nullable();

const thresholdChoiceSchema = z.object({
  threshold: z.number(),
  kappa: z.number().nullable(),
  f1: z.number().nullable(),
  accuracy: z.number(),
  precision: z.number().nullable(),
  recall: z.number().nullable(),
});

const rowPlace = {
  row: z.number().int().positive(),
  line: z.number().int().positive().nullable(),
  name: z.string(),
};

export const calibrationExampleSchema = z.object({
  ...rowPlace,
  input: z.string(),
  actualOutput: z.string(),
  label: z.string(),
  expected: z.boolean(),
  predicted: z.boolean(),
  score: z.number(),
  reason: z.string().nullable(),
});

export const unscoredRowSchema = z.object({ ...rowPlace, error: z.string() });

/** A {@link CalibrationReport} as stored and written to JSON. */
export const calibrationReportSchema = z.object({
  id: z.string(),
  runId: z.string(),
  createdAt: z.string(),
  status: z.enum(RUN_STATUSES),
  metric: z.object({
    name: z.string(),
    threshold: z.number(),
    lowerIsBetter: z.boolean(),
    strictMode: z.boolean(),
    judge: z.string().nullable(),
  }),
  data: z.object({
    source: z.string().nullable(),
    inputField: z.string(),
    outputField: z.string(),
    labelField: z.string(),
    positiveLabel: z.string(),
    negativeLabel: z.string().nullable(),
    limit: z.number().int().positive().nullable(),
  }),
  rows: z.object({ total: z.number(), scored: z.number(), unscored: z.number() }),
  labels: z.object({ positive: z.number(), negative: z.number() }),
  confusion: z.object({
    truePositive: z.number(),
    falseNegative: z.number(),
    falsePositive: z.number(),
    trueNegative: z.number(),
  }),
  accuracy: z.number().nullable(),
  accuracyCi: interval,
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  f1: z.number().nullable(),
  kappa: z.number().nullable(),
  kappaCi: interval,
  rocAuc: z.number().nullable(),
  bestKappa: thresholdChoiceSchema.nullable(),
  bestF1: thresholdChoiceSchema.nullable(),
  disagreementCount: z.number(),
  disagreements: z.array(calibrationExampleSchema),
  unscored: z.array(unscoredRowSchema),
  spending: judgeSpendingSchema,
  fakeJudge: z.literal(true).optional(),
});
