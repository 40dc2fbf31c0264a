/**
 * Test results that use every field a result can hold, each optional one present in some and
 * absent in others, with awkward text (quotes, NUL, lone surrogates, emoji, image markers) and
 * numbers: what a store must give back unchanged. Deterministic, so a failure always repeats.
 */
import type { ResultImage, TestResult, TrialResult } from "../results/evaluation-result.ts";
import type { JsonValue } from "../results/json-value.ts";
import type { JudgeCallRecord, MetricData, MetricStep } from "../results/metric-data.ts";
import type { SpanRecord, TestCaseRecord, TraceRecord } from "../results/trace-record.ts";

const TEXTS = [
  "plain text",
  "",
  "\"quoted\", \\back\\slashes\\ and 'single'",
  "[image 1: cat.png] what is in it?",
  "line\nbreak\r\ntab\tand a \u0000 nul",
  "\ud800 lone high surrogate, and a lone low \udc00",
  "Ünïcödé 😀 中文 עברית café ☕",
  "</script><!-- & < > -->",
  "\u2028 line and paragraph separators \u2029",
  "  spaced  ",
  "null",
  "🧪".repeat(40),
];
// JSON has no -0, NaN or Infinity, and results never hold them.
const NUMBERS = [0, 1, -1, 0.1 + 0.2, 1e12, -123.456, 1e-9, Number.MAX_SAFE_INTEGER];
const COUNTS = [0, 1, 7, 10_000, 2 ** 31];
const JSON_VALUES: JsonValue[] = [
  null,
  true,
  false,
  0,
  -1.5,
  "text",
  [],
  {},
  [1, "two", null, [true, { deep: "\ud800" }]],
  { nested: { list: [1, 2.5, null] }, "": "empty key", 'key "quoted"': "é\u0000" },
];

function pick<Value>(values: readonly Value[], seed: number): Value {
  return values[seed % values.length] as Value;
}

function maybe<Value>(seed: number, value: Value): Value | null {
  return seed % 3 === 0 ? null : value;
}

function judgeCall(seed: number): JudgeCallRecord {
  return {
    step: pick(TEXTS, seed),
    model: maybe(seed, "openai:gpt-4.1"),
    inputTokens: maybe(seed + 1, pick(COUNTS, seed)),
    outputTokens: maybe(seed + 2, pick(COUNTS, seed + 1)),
    costUsd: maybe(seed + 1, pick(NUMBERS, seed)),
    latencyMs: maybe(seed + 2, pick(COUNTS, seed + 2)),
    source: pick(["judge", "cache", "shared"] as const, seed),
  };
}

function step(seed: number): MetricStep {
  return { label: pick(TEXTS, seed), value: pick(JSON_VALUES, seed) };
}

function metricData(seed: number): MetricData {
  return {
    name: pick(TEXTS, seed + 3),
    threshold: maybe(seed, pick(NUMBERS, seed)),
    success: pick([true, false, null], seed),
    score: maybe(seed + 1, pick(NUMBERS, seed + 2)),
    reason: maybe(seed + 2, pick(TEXTS, seed + 4)),
    strictMode: seed % 2 === 0,
    lowerIsBetter: seed % 3 === 1,
    evaluationModel: maybe(seed, pick(TEXTS, seed + 5)),
    error: maybe(seed + 1, pick(TEXTS, seed + 6)),
    evaluationCost: maybe(seed + 2, pick(NUMBERS, seed + 3)),
    inputTokens: maybe(seed, pick(COUNTS, seed)),
    outputTokens: maybe(seed + 1, pick(COUNTS, seed + 1)),
    verboseLogs: pick(TEXTS, seed + 7),
    judgeCalls: pick(COUNTS, seed + 2),
    cachedJudgeCalls: pick(COUNTS, seed + 3),
    sharedJudgeCalls: pick(COUNTS, seed + 4),
    ...(seed % 2 === 0
      ? {
          saved: {
            inputTokens: pick(COUNTS, seed),
            outputTokens: pick(COUNTS, seed + 1),
            costUsd: maybe(seed, pick(NUMBERS, seed)),
          },
        }
      : {}),
    // Absent, empty, or holding one or two entries.
    ...(seed % 3 === 0 ? {} : { steps: [step(seed), step(seed + 1)].slice(0, (seed % 4) - 1) }),
    ...(seed % 4 === 3 ? {} : { calls: [judgeCall(seed), judgeCall(seed + 1)].slice(0, seed % 3) }),
  };
}

function testCaseRecord(seed: number): TestCaseRecord | null {
  if (seed % 3 === 0) return null;
  return {
    input: pick(TEXTS, seed),
    actualOutput: maybe(seed + 1, pick(TEXTS, seed + 1)),
    expectedOutput: maybe(seed + 2, pick(TEXTS, seed + 2)),
    context: maybe(seed, [pick(TEXTS, seed + 3)]),
    retrievalContext: maybe(seed + 1, [pick(TEXTS, seed + 4), pick(TEXTS, seed + 5)]),
    toolsCalled: maybe(seed + 2, [pick(JSON_VALUES, seed)]),
    expectedTools: maybe(seed, [pick(JSON_VALUES, seed + 1), pick(JSON_VALUES, seed + 2)]),
  };
}

function metadata(seed: number): { [key: string]: JsonValue } | null {
  return seed % 2 === 0 ? null : { [pick(TEXTS, seed)]: pick(JSON_VALUES, seed), tag: "x" };
}

function span(seed: number, depth: number): SpanRecord {
  return {
    name: pick(TEXTS, seed),
    type: pick(["agent", "llm", "retriever", "tool", "custom step"], seed),
    status: seed % 2 === 0 ? "ok" : "errored",
    error: maybe(seed, pick(TEXTS, seed + 1)),
    input: pick(JSON_VALUES, seed),
    output: pick(JSON_VALUES, seed + 1),
    startedAt: new Date(Date.UTC(2025, 0, 1, 10, 0, seed)).toISOString(),
    durationMs: maybe(seed + 1, pick(COUNTS, seed)),
    metadata: metadata(seed),
    testCase: testCaseRecord(seed),
    metricsData: seed % 2 === 0 ? [] : [metricData(seed)],
    children: depth === 0 ? [] : [span(seed + 1, depth - 1), span(seed + 2, depth - 1)],
  };
}

function trace(seed: number): TraceRecord {
  return {
    name: pick(TEXTS, seed),
    status: seed % 2 === 0 ? "errored" : "ok",
    error: maybe(seed, pick(TEXTS, seed + 2)),
    input: pick(JSON_VALUES, seed + 3),
    output: pick(JSON_VALUES, seed + 4),
    startedAt: new Date(Date.UTC(2025, 0, 1, 9, seed % 60)).toISOString(),
    durationMs: pick(COUNTS, seed),
    metadata: metadata(seed + 1),
    testCase: testCaseRecord(seed + 1),
    metricsData: [metricData(seed + 5)],
    spans: [span(seed, 2), span(seed + 3, 0)].slice(0, 1 + (seed % 2)),
  };
}

function image(seed: number): ResultImage {
  return {
    field: pick(["input", "actualOutput", "expectedOutput"] as const, seed),
    number: 1 + (seed % 20),
    start: pick(COUNTS, seed),
    end: pick(COUNTS, seed + 1),
    kind: pick(["url", "file", "data-url", "bytes"] as const, seed),
    label: pick(TEXTS, seed),
    ...(seed % 2 === 0 ? { data: pick(["data:image/png;base64,iVBORw0KGgo=", ""], seed / 2) } : {}),
  };
}

function trial(seed: number, number: number): TrialResult {
  return {
    trial: number,
    success: pick([true, false, null], seed + number),
    metricsData: [metricData(seed + number)].slice(0, (seed + number) % 2),
  };
}

/** Result `seed` of the series (its `index` is `seed`): the same result for the same seed. */
export function makeVariedTestResult(seed: number): TestResult {
  return {
    name: pick(TEXTS, seed),
    index: seed,
    success: pick([true, false, null], seed),
    input: pick(TEXTS, seed + 1),
    actualOutput: maybe(seed, pick(TEXTS, seed + 2)),
    expectedOutput: maybe(seed + 1, pick(TEXTS, seed + 3)),
    images: [image(seed), image(seed + 1)].slice(0, seed % 3),
    metricsData: [metricData(seed), metricData(seed + 1), metricData(seed + 2)].slice(0, seed % 4),
    trials: [trial(seed, 1), trial(seed, 2)].slice(0, seed % 3),
    passedTrials: pick(COUNTS, seed),
    ...(seed % 2 === 1 ? { durationMs: pick(COUNTS, seed + 1) } : {}),
    ...(seed % 3 === 1 ? { trace: trace(seed) } : {}),
    ...(seed % 2 === 0 ? { file: pick(TEXTS, seed + 4) } : {}),
    ...(seed % 3 === 2 ? { tags: [pick(TEXTS, seed), pick(TEXTS, seed + 5)] } : {}),
    ...(seed % 4 === 1 ? { context: [pick(TEXTS, seed + 6)] } : {}),
    ...(seed % 5 === 2
      ? { retrievalContext: [] }
      : seed % 5 === 3
        ? { retrievalContext: [pick(TEXTS, seed)] }
        : {}),
  };
}
