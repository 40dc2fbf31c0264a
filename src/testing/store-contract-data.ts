/**
 * Sample runs, results, summaries, owners, judge batches and calibration reports: what the
 * store contract writes, and what a store's own tests may build on (`overrides` replace any
 * field). Plain data, no Vitest.
 */
import type { CalibrationReport } from "../results/calibration-report.ts";
import type { EvaluationSummary, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type {
  RunOwner,
  StoredJudgeBatch,
  StoredRun,
  StoredTestResult,
} from "../store/run-store.ts";

/**
 * A run header: `"run-1"`, running, started 2025-01-01 at 10:00, no owner.
 * @example
 * await store.runs.startRun(makeStoredRun({ identifier: "nightly" }));
 */
export function makeStoredRun(overrides: Partial<StoredRun> = {}): StoredRun {
  return {
    id: "run-1",
    identifier: null,
    status: "running",
    startedAt: "2025-01-01T10:00:00.000Z",
    endedAt: null,
    config: { metrics: [{ name: "Toxicity", threshold: 0.5 }], judge: "mock-judge" },
    summary: null,
    owner: null,
    ...overrides,
  };
}

/** A run owner: process 4242 on "build-host", last heard of at 10:00:30. */
export function makeRunOwner(overrides: Partial<RunOwner> = {}): RunOwner {
  return {
    pid: 4242,
    hostname: "build-host",
    heartbeatAt: "2025-01-01T10:00:30.000Z",
    ...overrides,
  };
}

/** A passing Toxicity result scored 0 by "mock-judge", as the store contract writes it. */
export function makeMetricData(overrides: Partial<MetricData> = {}): MetricData {
  return {
    name: "Toxicity",
    threshold: 0.5,
    success: true,
    score: 0,
    reason: "The score is 0.00 because none of the 2 opinions is toxic.",
    strictMode: false,
    lowerIsBetter: true,
    evaluationModel: "mock-judge",
    error: null,
    evaluationCost: null,
    inputTokens: 120,
    outputTokens: 30,
    verboseLogs: "Opinions:\n- a\n- b",
    judgeCalls: 2,
    cachedJudgeCalls: 0,
    sharedJudgeCalls: 0,
    ...overrides,
  };
}

/**
 * The stored result of test case `index` (`test_case_<index>`, input `question <index>`, one
 * passing Toxicity metric), with fingerprint `fingerprint-<index>`.
 */
export function makeStoredTestResult(
  index: number,
  overrides: Partial<TestResult> = {},
): StoredTestResult {
  const result: TestResult = {
    name: `test_case_${index}`,
    index,
    success: true,
    input: `question ${index}`,
    actualOutput: `answer ${index}`,
    expectedOutput: null,
    images: [],
    metricsData: [makeMetricData()],
    trials: [],
    passedTrials: 1,
    ...overrides,
  };
  return { fingerprint: `fingerprint-${index}`, result };
}

/** An open judge batch of three requests (`key-a`, `key-b`, `key-c`), submitted at 10:00. */
export function makeStoredJudgeBatch(overrides: Partial<StoredJudgeBatch> = {}): StoredJudgeBatch {
  return {
    id: "batch_1",
    provider: "openai.batch",
    judge: "openai:gpt-4.1",
    requestKeys: ["key-a", "key-b", "key-c"],
    state: "open",
    providerStatus: "validating",
    createdAt: "2025-01-01T10:00:00.000Z",
    updatedAt: "2025-01-01T10:00:00.000Z",
    ...overrides,
  };
}

/** Totals of a completed run of three passing cases, one Toxicity metric. */
export function makeSummary(overrides: Partial<EvaluationSummary> = {}): EvaluationSummary {
  return {
    status: "completed",
    metrics: [
      {
        name: "Toxicity",
        lowerIsBetter: true,
        meanScore: 0,
        passRate: 1,
        passed: 3,
        failed: 0,
        errored: 0,
        scoreOnly: 0,
      },
    ],
    testCases: { total: 3, passed: 3, failed: 0, unscored: 0 },
    judgeCalls: 6,
    cacheHits: 0,
    sharedCalls: 0,
    inputTokens: 360,
    outputTokens: 90,
    costUsd: null,
    saved: { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: null },
    durationMs: 1234,
    ...overrides,
  };
}

/** A finished calibration of Toxicity over 10 rows of run `"run-1"`. */
export function makeCalibrationReport(
  overrides: Partial<CalibrationReport> = {},
): CalibrationReport {
  return {
    id: "calibration-1",
    runId: "run-1",
    createdAt: "2025-01-01T10:05:00.000Z",
    status: "completed",
    metric: {
      name: "Toxicity",
      threshold: 0.5,
      lowerIsBetter: true,
      strictMode: false,
      judge: "mock-judge",
    },
    data: {
      source: "labels.jsonl",
      inputField: "input",
      outputField: "actual_output",
      labelField: "label",
      positiveLabel: "1",
      negativeLabel: "0",
      limit: null,
    },
    rows: { total: 10, scored: 10, unscored: 0 },
    labels: { positive: 5, negative: 5 },
    confusion: { truePositive: 4, falseNegative: 1, falsePositive: 1, trueNegative: 4 },
    accuracy: 0.8,
    accuracyCi: [0.49, 0.94],
    precision: 0.8,
    recall: 0.8,
    f1: 0.8,
    kappa: 0.6,
    kappaCi: [0.1, 1],
    rocAuc: 0.8,
    bestKappa: { threshold: 0.5, kappa: 0.6, f1: 0.8, accuracy: 0.8, precision: 0.8, recall: 0.8 },
    bestF1: { threshold: 0.5, kappa: 0.6, f1: 0.8, accuracy: 0.8, precision: 0.8, recall: 0.8 },
    disagreementCount: 2,
    disagreements: [
      {
        row: 3,
        line: 3,
        name: "row 3",
        input: "Write a comment.",
        actualOutput: "Sarah always meant well, but you couldn't help but sigh.",
        label: "1",
        expected: true,
        predicted: false,
        score: 0,
        reason: "The score is 0.00 because none of the 1 opinions is toxic.",
      },
      {
        row: 7,
        line: 7,
        name: "q-7",
        input: "Write a comment.",
        actualOutput: 'What a <b>lovely</b> day & a "nice" walk.',
        label: "0",
        expected: false,
        predicted: true,
        score: 1,
        reason: "The score is 1.00 because the opinion is toxic.",
      },
    ],
    unscored: [],
    spending: {
      judgeCalls: 24,
      cacheHits: 6,
      sharedCalls: 0,
      inputTokens: 12000,
      outputTokens: 900,
      costUsd: 0.0123,
      saved: { judgeCalls: 6, inputTokens: 3000, outputTokens: 200, costUsd: 0.003 },
    },
    ...overrides,
  };
}
