import { toJsonValue } from "../results/to-json-value.ts";
import type { JsonValue, TestCaseRecord } from "../results/trace-record.ts";
import type { Golden } from "../test-case/golden.ts";
import { type Content, isImagePart } from "../test-case/image.ts";
import { LLMTestCase, type LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import type { LiveSpan, LiveTrace, RecordedFields } from "../tracing/span-context.ts";
import { contentForReport } from "./build-test-result.ts";

/** A recorded value as test-case content: text and image parts as they are, anything else as JSON text. */
function contentFromValue(value: unknown): Content | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (
    Array.isArray(value) &&
    value.every((part) => typeof part === "string" || isImagePart(part))
  ) {
    return value;
  }
  const json = toJsonValue(value);
  return typeof json === "string" ? json : JSON.stringify(json);
}

function mergeMetadata(
  ...sources: Array<Record<string, unknown> | undefined>
): Record<string, unknown> | undefined {
  const present = sources.filter((source) => source !== undefined);
  return present.length === 0 ? undefined : Object.assign({}, ...present);
}

function withoutUndefined(fields: Record<string, unknown>): LLMTestCaseFields {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as unknown as LLMTestCaseFields;
}

/** The fields given explicitly, over those of the given test case, over the fallbacks. */
function combine(options: {
  recorded: RecordedFields;
  fallback: Partial<LLMTestCaseFields>;
  actualOutput?: Content | undefined;
}): LLMTestCaseFields {
  const { recorded, fallback } = options;
  const given = (recorded.testCase ?? {}) as Partial<LLMTestCaseFields>;
  return withoutUndefined({
    ...given,
    input: contentFromValue(recorded.input) ?? given.input ?? fallback.input,
    actualOutput:
      contentFromValue(recorded.output) ??
      given.actualOutput ??
      options.actualOutput ??
      fallback.actualOutput,
    expectedOutput:
      contentFromValue(recorded.expectedOutput) ?? given.expectedOutput ?? fallback.expectedOutput,
    context: recorded.context ?? given.context ?? fallback.context,
    retrievalContext:
      recorded.retrievalContext ?? given.retrievalContext ?? fallback.retrievalContext,
    toolsCalled: recorded.toolsCalled ?? given.toolsCalled ?? fallback.toolsCalled,
    expectedTools: recorded.expectedTools ?? given.expectedTools ?? fallback.expectedTools,
    name: given.name ?? fallback.name,
    tags: given.tags ?? fallback.tags,
    metadata: mergeMetadata(fallback.metadata, given.metadata, recorded.metadata),
  });
}

/**
 * The test case a span's metrics score: from `updateCurrentSpan({ testCase })` and the
 * fields given with it (`input`, `output`, …). `null` when the span was given none. Throws
 * the test case's validation error when the fields are wrong.
 */
export function buildSpanTestCase(span: LiveSpan): LLMTestCase | null {
  const recorded = span.fields;
  if (
    recorded.testCase === undefined &&
    recorded.input === undefined &&
    recorded.output === undefined
  )
    return null;
  // Only an output was given: the span's own input is what it was asked.
  const args = span.input;
  const input =
    Array.isArray(args) && args.length === 1 && typeof args[0] === "string"
      ? args[0]
      : JSON.stringify(args);
  return new LLMTestCase(combine({ recorded, fallback: { input } }));
}

/**
 * The test case trace-level metrics score: the golden's input and known fields, the
 * application's output (`updateCurrentTrace({ output })`, else what the callback returned,
 * else the golden's `actualOutput`), and whatever `updateCurrentTrace` gave.
 */
export function buildTraceTestCase(options: {
  trace: LiveTrace;
  golden: Golden;
  returned: unknown;
}): LLMTestCase {
  const { golden } = options;
  const { comments: _comments, ...fallback } = golden;
  return new LLMTestCase(
    combine({
      recorded: options.trace.fields,
      fallback,
      actualOutput: contentFromValue(options.returned),
    }),
  );
}

/** A test case's scored fields as report text, for span and trace records. */
export function recordTestCase(testCase: LLMTestCase): TestCaseRecord {
  const tools = (calls: unknown[] | undefined) =>
    calls === undefined ? null : (toJsonValue(calls) as JsonValue[]);
  return {
    input: contentForReport(testCase.input) ?? "",
    actualOutput: contentForReport(testCase.actualOutput),
    expectedOutput: contentForReport(testCase.expectedOutput),
    context: testCase.context ? [...testCase.context] : null,
    retrievalContext: testCase.retrievalContext ? [...testCase.retrievalContext] : null,
    toolsCalled: tools(testCase.toolsCalled),
    expectedTools: tools(testCase.expectedTools),
  };
}
