import type { MetricData } from "../results/metric-data.ts";
import { toJsonValue } from "../results/to-json-value.ts";
import type { JsonValue, SpanRecord, TraceRecord } from "../results/trace-record.ts";
import type { LLMTestCase } from "../test-case/llm-test-case.ts";
import { type CollectedTrace, describeThrown, type LiveSpan } from "../tracing/span-context.ts";
import { recordTestCase } from "./trace-test-cases.ts";

/** What was scored on a span or on the trace. */
export interface ScoredPart {
  testCase: LLMTestCase | null;
  metricsData: MetricData[];
}

function recordMetadata(metadata: Record<string, unknown> | undefined) {
  return metadata === undefined ? null : (toJsonValue(metadata) as { [key: string]: JsonValue });
}

function recordSpan(span: LiveSpan, scored: Map<LiveSpan, ScoredPart>): SpanRecord {
  const part = scored.get(span);
  const unfinished = span.durationMs === null;
  return {
    name: span.name,
    type: span.type,
    status: span.error !== null || unfinished ? "errored" : "ok",
    error: unfinished ? "The call had not finished when the application returned." : span.error,
    input: span.input,
    output: span.output,
    startedAt: new Date(span.startedAt).toISOString(),
    durationMs: span.durationMs,
    metadata: recordMetadata(span.fields.metadata),
    testCase: part?.testCase ? recordTestCase(part.testCase) : null,
    metricsData: part?.metricsData ?? [],
    children: span.children.map((child) => recordSpan(child, scored)),
  };
}

/** The span tree of one application run, with each span's metric results, as plain JSON. */
export function buildTraceRecord(options: {
  collected: CollectedTrace;
  /** Used when `updateCurrentTrace({ name })` gave none. */
  defaultName: string;
  traceInput: JsonValue;
  trace: ScoredPart;
  spans: Map<LiveSpan, ScoredPart>;
}): TraceRecord {
  const { collected } = options;
  const { trace } = collected;
  return {
    name: trace.name ?? options.defaultName,
    status: collected.threw ? "errored" : "ok",
    error: collected.threw ? describeThrown(collected.error) : null,
    input: "input" in trace.fields ? toJsonValue(trace.fields.input) : options.traceInput,
    output: toJsonValue("output" in trace.fields ? trace.fields.output : collected.output),
    startedAt: new Date(trace.startedAt).toISOString(),
    durationMs: trace.durationMs,
    metadata: recordMetadata(trace.fields.metadata),
    testCase: options.trace.testCase ? recordTestCase(options.trace.testCase) : null,
    metricsData: options.trace.metricsData,
    spans: trace.spans.map((span) => recordSpan(span, options.spans)),
  };
}
