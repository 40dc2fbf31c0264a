import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { evaluationResultArbitrary } from "../../test/fixtures/result-arbitraries.ts";
import { evaluationResult, metricData, testResult } from "../../test/fixtures/results.ts";
import { ConfigError } from "../errors/config-error.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import {
  createJsonReporter,
  parseJsonReport,
  readJsonReport,
  renderJsonReport,
} from "./json-report.ts";

function metric(overrides: Partial<MetricData> = {}): MetricData {
  return metricData({
    name: "Toxicity",
    score: 0.25,
    reason: "One of 4 opinions is toxic.",
    evaluationCost: 0.0012,
    inputTokens: 300,
    outputTokens: 40,
    verboseLogs: "Opinions:\n[]",
    judgeCalls: 3,
    cachedJudgeCalls: 1,
    ...overrides,
  });
}

const repeatedCase: TestResult = {
  name: "refunds <b>",
  index: 0,
  success: false,
  input: "Describe [image 1: cat.png]",
  actualOutput: "A cat.",
  expectedOutput: null,
  images: [{ field: "input", number: 1, start: 9, end: 27, kind: "file", label: "cat.png" }],
  metricsData: [metric()],
  trials: [
    { trial: 0, success: true, metricsData: [metric()] },
    {
      trial: 1,
      success: false,
      metricsData: [metric({ success: false, score: null, reason: null, error: "timeout" })],
    },
  ],
  passedTrials: 1,
};

const result: EvaluationResult = {
  testRunId: "run-42",
  identifier: null,
  testResults: [
    repeatedCase,
    {
      ...repeatedCase,
      name: "score only",
      index: 1,
      success: null,
      metricsData: [metric({ threshold: null, success: null })],
      trials: [],
      passedTrials: 1,
    },
  ],
  summary: {
    status: "interrupted",
    metrics: [
      {
        name: "Toxicity",
        lowerIsBetter: true,
        meanScore: 0.25,
        passRate: 0.5,
        passed: 1,
        failed: 0,
        errored: 1,
        scoreOnly: 1,
      },
    ],
    testCases: { total: 3, passed: 1, failed: 1, unscored: 1 },
    judgeCalls: 9,
    cacheHits: 2,
    sharedCalls: 1,
    inputTokens: 900,
    outputTokens: 120,
    costUsd: null,
    saved: { judgeCalls: 3, inputTokens: 300, outputTokens: 40, costUsd: null },
    durationMs: 1234,
  },
};

function parseError(text: string, source = "reports/results.json"): ConfigError {
  try {
    parseJsonReport({ text, source });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("parseJsonReport did not throw");
}

describe("renderJsonReport", () => {
  it("puts format and version first, then every field of the result, each case with its position", () => {
    const text = renderJsonReport({ result });
    const document = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(document)).toEqual([
      "format",
      "version",
      "testRunId",
      "identifier",
      "testResults",
      "summary",
    ]);
    expect(document.format).toBe("verdict-evaluation-result");
    expect(document.version).toBe(1);
    const { format: _format, version: _version, ...rest } = document;
    expect(rest).toEqual({
      ...result,
      testResults: result.testResults.map((testResult, index) => ({
        ...testResult,
        position: index + 1,
      })),
    });
    expect(text).toContain('\n  "format": "verdict-evaluation-result",\n');
    expect(text.endsWith("}\n")).toBe(true);
  });
});

describe("renderJsonReport and readJsonReport", () => {
  it("show each case's place counted from 1, whatever its internal index", () => {
    const sparse = {
      ...result,
      testResults: result.testResults.map((testResult, index) => ({
        ...testResult,
        index: 10_000_400_000 + index * 100_000,
      })),
    };
    const document = JSON.parse(renderJsonReport({ result: sparse })) as {
      testResults: Array<{ name: string; position: number; index: number }>;
    };
    expect(document.testResults.map(({ position }) => position)).toEqual(
      sparse.testResults.map((_, index) => index + 1),
    );
    expect(Object.keys(document.testResults[0] ?? {}).slice(0, 3)).toEqual([
      "name",
      "position",
      "index",
    ]);
  });

  it("record and read back the shard of a sharded run; null without one", () => {
    const sharded = renderJsonReport({ result, shard: "3/4" });
    expect(JSON.parse(sharded)).toMatchObject({ version: 1, shard: "3/4" });
    expect(readJsonReport({ text: sharded, source: "s.json" })).toEqual({ result, shard: "3/4" });
    const plain = renderJsonReport({ result });
    expect(readJsonReport({ text: plain, source: "p.json" })).toEqual({ result, shard: null });
    const broken = plain.replace('"version": 1,', '"version": 1, "shard": "three",');
    expect(() => readJsonReport({ text: broken, source: "b.json" })).toThrow(
      /"b\.json" is not a verdict JSON report: "shard" is "three"; expected "i\/n"/,
    );
  });
});

describe("parseJsonReport", () => {
  it("round-trips a rendered report, nulls, trials and images markers included", () => {
    const parsed = parseJsonReport({ text: renderJsonReport({ result }), source: "a.json" });
    expect(parsed).toEqual(result);
  });

  it("drops fields it does not know, so a newer version-1 writer stays readable", () => {
    const document = { ...JSON.parse(renderJsonReport({ result })), addedLater: true };
    const parsed = parseJsonReport({ text: JSON.stringify(document), source: "a.json" });
    expect(parsed).toEqual(result);
  });

  it("rejects text that is not JSON, naming the file", () => {
    const error = parseError("{ not json");
    expect(error.message).toMatch(
      /^"reports\/results\.json" is not a verdict JSON report: it is not valid JSON \(/,
    );
    expect(error.code).toBe("CONFIG");
    expect(error.cause).toMatchObject({ name: "SyntaxError" });
  });

  it("rejects JSON without the format marker, and says how to make one", () => {
    expect(parseError("[1, 2]").message).toContain("expected a JSON object at the top level");
    const { format: _format, ...unmarked } = JSON.parse(renderJsonReport({ result }));
    expect(parseError(JSON.stringify(unmarked)).message).toBe(
      '"reports/results.json" is not a verdict JSON report: it has no "format": "verdict-evaluation-result" field. Write one with --output json or createJsonReporter().',
    );
  });

  it("rejects a report from a newer verdict with an upgrade hint", () => {
    const document = { ...JSON.parse(renderJsonReport({ result })), version: 2 };
    expect(parseError(JSON.stringify(document)).message).toContain(
      "it is version 2, written by a newer verdict; this one reads version 1. Upgrade verdict.",
    );
    const unversioned = { ...document, version: undefined };
    expect(parseError(JSON.stringify(unversioned)).message).toContain(
      '"version" is missing; expected 1.',
    );
  });

  it("names the path of each field with the wrong type", () => {
    const document = JSON.parse(renderJsonReport({ result }));
    document.testResults[1].metricsData[0].score = "high";
    document.summary.status = "exploded";
    const error = parseError(JSON.stringify(document), "shard-2.json");
    expect(error.message).toMatch(/^"shard-2\.json" is not a verdict JSON report: /);
    expect(error.message).toContain("testResults[1].metricsData[0].score: ");
    expect(error.message).toContain("summary.status: ");
  });
});

describe("createJsonReporter", () => {
  let folder: string | undefined;
  afterEach(() => {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  it("writes the report on run-end only, creating missing folders", () => {
    folder = mkdtempSync(join(tmpdir(), "verdict-json-report-"));
    const file = join(folder, "nested", "deeper", "results.json");
    const reporter = createJsonReporter({ file });
    reporter.onEvent({
      type: "run-start",
      runId: "run-42",
      identifier: null,
      totalTestCases: 3,
      resumedTestCases: 0,
      metricNames: ["Toxicity"],
      startedAt: "2025-06-01T00:00:00.000Z",
    });
    expect(() => readFileSync(file)).toThrow();
    reporter.onEvent({ type: "run-end", runId: "run-42", result, message: null });
    const text = readFileSync(file, "utf8");
    expect(text).toBe(renderJsonReport({ result }));
    expect(parseJsonReport({ text, source: file })).toEqual(result);
  });

  it("fails with a ConfigError naming the file when it cannot write", () => {
    folder = mkdtempSync(join(tmpdir(), "verdict-json-report-"));
    const blocker = join(folder, "not-a-folder");
    writeFileSync(blocker, "");
    const reporter = createJsonReporter({ file: join(blocker, "results.json") });
    expect(() =>
      reporter.onEvent({ type: "run-end", runId: "run-42", result, message: null }),
    ).toThrow(/Could not write the JSON report to ".*not-a-folder\/results\.json"/);
  });
});

describe("the JSON report is lossless", () => {
  it("reads back every field it wrote, for generated results (traces, savings, images, errors)", () => {
    fc.assert(
      fc.property(evaluationResultArbitrary, (generated) => {
        const text = renderJsonReport({ result: generated });
        expect(parseJsonReport({ text, source: "generated.json" })).toStrictEqual(
          structuredClone(generated),
        );
      }),
      { numRuns: 100 },
    );
  });

  it("reads reports of older versions: missing lowerIsBetter, sharedJudgeCalls and images get defaults", () => {
    const current = renderJsonReport({ result });
    const old = JSON.parse(current) as {
      testResults: Array<{ images?: unknown; metricsData: Array<Record<string, unknown>> }>;
      summary: { metrics: Array<Record<string, unknown>> };
    };
    for (const testResult of old.testResults) {
      delete testResult.images;
      for (const metric of testResult.metricsData) {
        delete metric.lowerIsBetter;
        delete metric.sharedJudgeCalls;
      }
    }
    for (const metric of old.summary.metrics) delete metric.lowerIsBetter;
    const parsed = parseJsonReport({ text: JSON.stringify(old), source: "old.json" });
    const first = parsed.testResults[0];
    expect(first?.images).toEqual([]);
    expect(first?.metricsData[0]).toMatchObject({
      name: "Toxicity",
      lowerIsBetter: true,
      sharedJudgeCalls: 0,
    });
    expect(parsed.summary.metrics[0]).toMatchObject({ name: "Toxicity", lowerIsBetter: true });
  });
});

describe("the JSON report keeps user data as given", () => {
  it('keeps a "__proto__" key in span inputs and metadata as an ordinary key', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "question": "q"}');
    const withTrace = evaluationResult({
      testResults: [
        testResult({
          trace: {
            name: "app",
            status: "ok",
            error: null,
            input,
            output: "a",
            startedAt: "2026-01-01T00:00:00.000Z",
            durationMs: 1,
            metadata: JSON.parse('{"__proto__": "x"}'),
            testCase: null,
            metricsData: [],
            spans: [],
          },
        }),
      ],
    });
    const parsed = parseJsonReport({
      text: renderJsonReport({ result: withTrace }),
      source: "p.json",
    });
    const trace = parsed.testResults[0]?.trace;
    expect(Object.keys(trace?.input as object)).toEqual(["__proto__", "question"]);
    expect(Object.hasOwn(trace?.metadata ?? {}, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
