import type { JsonValue } from "./json-value.ts";
import type { MetricData } from "./metric-data.ts";

export type { JsonValue } from "./json-value.ts";

/** What a span does; any other name is allowed. */
export type SpanType = "agent" | "llm" | "retriever" | "tool" | (string & {});

/** The test-case fields a span or trace was scored on, as report text (images as `[image N: source]`). */
export interface TestCaseRecord {
  input: string;
  actualOutput: string | null;
  expectedOutput: string | null;
  context: string[] | null;
  retrievalContext: string[] | null;
  toolsCalled: JsonValue[] | null;
  expectedTools: JsonValue[] | null;
}

/** One observed call, as plain JSON: what evaluate() returns in `trace` and the store keeps. */
export interface SpanRecord {
  /** The `name` option, else the function's (or method's) name; `updateCurrentSpan({ name })` renames it. */
  name: string;
  type: SpanType;
  /** `"errored"` when the call threw (or had not finished when the application returned). */
  status: "ok" | "errored";
  /** The error's message when the call threw. */
  error: string | null;
  /** The arguments (or `updateCurrentSpan({ input })`), serialised safely. */
  input: JsonValue;
  /** The return value (or `updateCurrentSpan({ output })`), serialised safely. */
  output: JsonValue;
  /** ISO time the call began. */
  startedAt: string;
  /** `null` when the call had not finished when the application returned. */
  durationMs: number | null;
  metadata: { [key: string]: JsonValue } | null;
  /** The test case the span's metrics were scored on; `null` when none was given. */
  testCase: TestCaseRecord | null;
  /** Results of the span's metrics (names as the metrics', without the span's name). */
  metricsData: MetricData[];
  /** Observed calls made inside this one, in the order they began. */
  children: SpanRecord[];
}

/** One run of the application on one golden, as plain JSON. */
export interface TraceRecord {
  /** `updateCurrentTrace({ name })`, else the callback's name. */
  name: string;
  /** `"errored"` when the application threw. */
  status: "ok" | "errored";
  error: string | null;
  /** The golden's input (or `updateCurrentTrace({ input })`). */
  input: JsonValue;
  /** What the application returned (or `updateCurrentTrace({ output })`). */
  output: JsonValue;
  startedAt: string;
  durationMs: number;
  metadata: { [key: string]: JsonValue } | null;
  /** The test case the trace-level metrics were scored on. */
  testCase: TestCaseRecord | null;
  /** Results of the trace-level metrics. */
  metricsData: MetricData[];
  /** The outermost observed calls, in the order they began. */
  spans: SpanRecord[];
}
