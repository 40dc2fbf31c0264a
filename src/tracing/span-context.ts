import { AsyncLocalStorage } from "node:async_hooks";
import { ConfigError } from "../errors/config-error.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import { toJsonValue } from "../results/to-json-value.ts";
import type { JsonValue, SpanType } from "../results/trace-record.ts";
import type { SpanUpdate } from "./span-update.ts";

/** What `updateCurrentSpan` / `updateCurrentTrace` set, merged, kept raw until scoring. */
export type RecordedFields = Omit<SpanUpdate, "name">;

/** A span while its trace is being collected (internal; stored as a `SpanRecord`). */
export interface LiveSpan {
  name: string;
  readonly type: SpanType;
  readonly metrics: ReadonlyArray<BaseMetric<object>>;
  input: JsonValue;
  output: JsonValue;
  /** `Date.now()` when the call began. */
  readonly startedAt: number;
  /** `performance.now()` when the call began. */
  readonly startTime: number;
  /** `null` until the call finished. */
  durationMs: number | null;
  error: string | null;
  fields: RecordedFields;
  readonly children: LiveSpan[];
}

/** A trace while it is being collected (internal; stored as a `TraceRecord`). */
export interface LiveTrace {
  name: string | null;
  readonly startedAt: number;
  readonly startTime: number;
  durationMs: number;
  /** Set when the application returned: later calls and updates are not recorded. */
  sealed: boolean;
  fields: RecordedFields;
  /** Metrics added with `updateCurrentTrace({ metrics })`. */
  readonly metrics: Array<BaseMetric<object>>;
  readonly spans: LiveSpan[];
}

/**
 * What the async context holds. `trace: null`: inside an observed function with no trace
 * being collected (plain production use): nothing is recorded and updates do nothing.
 */
export type TraceFrame =
  | { readonly trace: LiveTrace; readonly span: LiveSpan | null }
  | { readonly trace: null; readonly span: null };

// One storage for the process: each trace and each span runs in its own frame, so
// concurrent traces (and concurrent calls inside one) never see each other's spans.
const storage = new AsyncLocalStorage<TraceFrame>();

/** The frame of an observed call with no trace being collected. */
export const notRecording: TraceFrame = Object.freeze({ trace: null, span: null });

/** The current frame; `undefined` outside any observed function or trace. */
export function currentFrame(): TraceFrame | undefined {
  return storage.getStore();
}

/** Runs `run` with `frame` as the current frame (through every async continuation). */
export function runInFrame<Result>(frame: TraceFrame, run: () => Result): Result {
  return storage.run(frame, run);
}

/** Starts a span under the frame's current span (or at the top of its trace). */
export function openSpan(options: {
  trace: LiveTrace;
  parent: LiveSpan | null;
  name: string;
  type: SpanType;
  metrics: ReadonlyArray<BaseMetric<object>>;
  args: readonly unknown[];
}): LiveSpan {
  const span: LiveSpan = {
    name: options.name,
    type: options.type,
    metrics: options.metrics,
    input: toJsonValue(options.args),
    output: null,
    startedAt: Date.now(),
    startTime: performance.now(),
    durationMs: null,
    error: null,
    fields: {},
    children: [],
  };
  (options.parent?.children ?? options.trace.spans).push(span);
  return span;
}

/** Ends a span with its return value or error. Never throws. */
export function closeSpan(options: {
  trace: LiveTrace;
  span: LiveSpan;
  outcome: { value: unknown } | { error: unknown };
}): void {
  const { trace, span, outcome } = options;
  if (trace.sealed) return;
  try {
    span.durationMs = performance.now() - span.startTime;
    if ("error" in outcome) span.error = describeThrown(outcome.error);
    else if (!("output" in span.fields)) span.output = toJsonValue(outcome.value);
  } catch {
    // Recording must never change what the application does.
  }
}

const FIELDS = [
  "testCase",
  "input",
  "output",
  "expectedOutput",
  "retrievalContext",
  "context",
  "toolsCalled",
  "expectedTools",
  "metadata",
  "name",
] as const;

/**
 * Merges an update into recorded fields: later values win, metadata is merged. An unknown
 * field is a ConfigError (a misspelt field would otherwise be lost without a word).
 */
export function mergeFields(options: {
  recorded: RecordedFields;
  update: SpanUpdate;
  /** The calling function, for messages. */
  caller: string;
  /** Fields the caller takes beyond the span's. */
  extraFields?: readonly string[];
}): RecordedFields {
  const { recorded, update, caller } = options;
  const known: readonly string[] = [...FIELDS, ...(options.extraFields ?? [])];
  const unknown = Object.keys(update).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new ConfigError(
      `${caller} got unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => `"${key}"`).join(", ")}: ` +
        `it takes ${known.join(", ")} (the test case's actualOutput is "output", or give a whole testCase).`,
    );
  }
  const merged: RecordedFields = { ...recorded };
  if (update.metadata !== undefined) merged.metadata = { ...recorded.metadata, ...update.metadata };
  // Copies: what the application changes afterwards is not what was recorded.
  if (update.testCase !== undefined) merged.testCase = { ...update.testCase };
  for (const key of ["context", "retrievalContext", "toolsCalled", "expectedTools"] as const) {
    const value = update[key];
    // Anything but an array is kept as it is, for the test case's validation to report.
    if (value !== undefined)
      Object.assign(merged, { [key]: Array.isArray(value) ? [...value] : value });
  }
  for (const key of ["input", "output", "expectedOutput"] as const) {
    if (update[key] !== undefined) merged[key] = update[key];
  }
  return merged;
}

/** The message of something thrown, whatever it is. */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    const text = toJsonValue(error);
    return typeof text === "string" ? text : JSON.stringify(text);
  } catch {
    return "unknown error";
  }
}

/** A collected trace and how the application ended. */
export interface CollectedTrace {
  trace: LiveTrace;
  /** What the application returned (awaited). */
  output: unknown;
  /** Whether the application threw (or its promise rejected). */
  threw: boolean;
  error: unknown;
}

/**
 * Runs an application under a fresh trace and returns the span tree once it has returned
 * (awaited). Spans still running then are left unfinished; nothing is recorded afterwards.
 */
export async function collectTrace(options: {
  run: () => unknown;
  name?: string | null;
}): Promise<CollectedTrace> {
  const trace: LiveTrace = {
    name: options.name ?? null,
    startedAt: Date.now(),
    startTime: performance.now(),
    durationMs: 0,
    sealed: false,
    fields: {},
    metrics: [],
    spans: [],
  };
  let output: unknown;
  let threw = false;
  let error: unknown = null;
  try {
    output = await runInFrame({ trace, span: null }, options.run);
  } catch (caught) {
    threw = true;
    error = caught;
  }
  trace.durationMs = performance.now() - trace.startTime;
  trace.sealed = true;
  return { trace, output, threw, error };
}
