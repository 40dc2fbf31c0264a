import { describe, expect, it } from "vitest";
import { testResult as baseTestResult, metricData } from "../../../test/fixtures/results.ts";
import { parseJsonReport, renderJsonReport } from "../../report/json-report.ts";
import type { EvaluationResult, TestResult } from "../../results/evaluation-result.ts";
import type { MetricData } from "../../results/metric-data.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import { decideTestRunOutcome } from "../../results/test-run-outcome.ts";
import type { TraceRecord } from "../../results/trace-record.ts";
import { findMissingShards, mergeEvaluationResults } from "./merge.ts";

function testResult(options: { name: string; index: number; score: number; error?: string }) {
  const metric: MetricData = metricData({
    success: options.error === undefined ? options.score <= 0.5 : false,
    score: options.error === undefined ? options.score : null,
    reason: null,
    evaluationModel: "mock-judge",
    error: options.error ?? null,
    evaluationCost: 0.01,
    inputTokens: 10,
    outputTokens: 1,
  });
  return baseTestResult({
    name: options.name,
    index: options.index,
    success: metric.success,
    input: "q",
    actualOutput: "a",
    metricsData: [metric],
    passedTrials: 1,
  });
}

function shard(options: {
  testResults: TestResult[];
  unscored?: number;
  status?: "completed" | "quota-exhausted";
}): EvaluationResult {
  const spending = {
    judgeCalls: 2 * options.testResults.length,
    cacheHits: 1,
    sharedCalls: 0,
    inputTokens: 10,
    outputTokens: 1,
    costUsd: 0.02,
    saved: { judgeCalls: 1, inputTokens: 5, outputTokens: 1, costUsd: 0.01 },
  };
  return {
    testRunId: "run",
    identifier: "nightly",
    testResults: options.testResults,
    summary: summarizeRun({
      status: options.status ?? "completed",
      testResults: options.testResults,
      total: options.testResults.length + (options.unscored ?? 0),
      spending,
      durationMs: 1000 * options.testResults.length,
    }),
  };
}

describe("mergeEvaluationResults", () => {
  it("orders the shards' cases by index and recomputes the summary", () => {
    const merged = mergeEvaluationResults({
      results: [
        shard({ testResults: [testResult({ name: "b", index: 10_000_000_000, score: 0.9 })] }),
        shard({
          testResults: [
            testResult({ name: "a1", index: 0, score: 0 }),
            testResult({ name: "a2", index: 100_000, score: 0 }),
          ],
        }),
      ],
    });
    expect(merged.testResults.map((result) => [result.name, result.index])).toEqual([
      ["a1", 0],
      ["a2", 100_000],
      ["b", 10_000_000_000],
    ]);
    expect(merged.identifier).toBe("nightly");
    expect(merged.summary).toMatchObject({
      status: "completed",
      testCases: { total: 3, passed: 2, failed: 1, unscored: 0 },
      metrics: [{ name: "Toxicity", passed: 2, failed: 1, errored: 0 }],
      judgeCalls: 6,
      cacheHits: 2,
      saved: { judgeCalls: 2, inputTokens: 10 },
      durationMs: 2000,
    });
    expect(merged.summary.costUsd).toBeCloseTo(0.04);
    expect(decideTestRunOutcome({ result: merged })).toBe("failed");
  });

  it("re-indexes from 0 when parts share indices, keeping each part's order", () => {
    const merged = mergeEvaluationResults({
      results: [
        shard({
          testResults: [
            testResult({ name: "x0", index: 0, score: 0 }),
            testResult({ name: "x1", index: 1, score: 0 }),
          ],
        }),
        shard({ testResults: [testResult({ name: "y0", index: 0, score: 0 })] }),
      ],
    });
    expect(merged.testResults.map((result) => [result.name, result.index])).toEqual([
      ["x0", 0],
      ["y0", 1],
      ["x1", 2],
    ]);
  });

  it("ends as badly as its worst part: unscored cases and a stopped run carry over", () => {
    const merged = mergeEvaluationResults({
      results: [
        shard({ testResults: [testResult({ name: "a", index: 0, score: 0 })] }),
        shard({ testResults: [], unscored: 2, status: "quota-exhausted" }),
      ],
    });
    expect(merged.summary.status).toBe("quota-exhausted");
    expect(merged.summary.testCases).toEqual({
      total: 3,
      passed: 1,
      failed: 0,
      unscored: 2,
      errored: 0,
    });
    expect(decideTestRunOutcome({ result: merged })).toBe("unscored");
  });

  it("keeps every field of the shards' JSON reports: traces, savings and images", () => {
    const trace: TraceRecord = {
      name: "answer",
      status: "ok",
      error: null,
      input: "q",
      output: "a",
      startedAt: "2026-01-01T00:00:00.000Z",
      durationMs: 12,
      metadata: null,
      testCase: null,
      metricsData: [],
      spans: [],
    };
    const withEverything: TestResult = {
      ...testResult({ name: "traced", index: 0, score: 0 }),
      images: [{ field: "input", number: 1, start: 0, end: 18, kind: "file", label: "a.png" }],
      metricsData: [
        metricData({
          cachedJudgeCalls: 1,
          saved: { inputTokens: 7, outputTokens: 2, costUsd: 0.001 },
        }),
      ],
      trace,
    };
    const parts = [shard({ testResults: [withEverything] }), shard({ testResults: [] })].map(
      (part, position) =>
        parseJsonReport({
          text: renderJsonReport({ result: part }),
          source: `shard-${position}.json`,
        }),
    );
    const [merged] = mergeEvaluationResults({ results: parts }).testResults;
    expect(merged).toEqual(withEverything);
    expect(merged?.trace).toEqual(trace);
    expect(merged?.metricsData[0]?.saved).toEqual({
      inputTokens: 7,
      outputTokens: 2,
      costUsd: 0.001,
    });
  });
});

describe("findMissingShards", () => {
  it("names the shards of a run that have no report", () => {
    expect(findMissingShards({ shards: ["1/4", "2/4", "4/4"] })).toEqual([
      "shard 3/4 has no report",
    ]);
    expect(findMissingShards({ shards: ["2/4"] })).toEqual(["shards 1/4, 3/4, 4/4 have no report"]);
    expect(findMissingShards({ shards: ["2/2", "1/2"] })).toEqual([]);
  });

  it("finds a shard given twice and shards of differently split runs; ignores unsharded reports", () => {
    expect(findMissingShards({ shards: ["1/2", "1/2", "2/2"] })).toEqual([
      "shard 1/2 is given twice",
    ]);
    expect(findMissingShards({ shards: ["1/2", "2/3"] })).toEqual([
      "the reports come from runs split differently (1/2, 2/3): merge the shards of one run",
    ]);
    expect(findMissingShards({ shards: [null, null] })).toEqual([]);
  });
});
