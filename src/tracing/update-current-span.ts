import { ConfigError } from "../errors/config-error.ts";
import type { LLMTestCase, LLMTestCaseFields, ToolCall } from "../test-case/llm-test-case.ts";
import { currentFrame, mergeFields } from "./span-context.ts";
import { toJsonValue } from "./to-json-value.ts";

/**
 * What `updateCurrentSpan` (and `updateCurrentTrace`) record. A `testCase` gives every field
 * at once; the other fields override it. The span's metrics are scored on the test case made
 * of these fields, after the application returned.
 */
export interface SpanUpdate {
  /** The test case the span's metrics score. */
  testCase?: LLMTestCase | LLMTestCaseFields;
  /** The test case's `input`; also shown as the span's input instead of its arguments. */
  input?: unknown;
  /** The test case's `actualOutput`; also shown as the span's output instead of its return value. */
  output?: unknown;
  expectedOutput?: unknown;
  retrievalContext?: string[];
  context?: string[];
  toolsCalled?: ToolCall[];
  expectedTools?: ToolCall[];
  /** Shown with the span; merged with earlier metadata. */
  metadata?: Record<string, unknown>;
  /** Renames the span. */
  name?: string;
}

/**
 * Records fields on the span of the observed function it is called in: the test case its
 * metrics score, input, output, retrieval context, metadata, … Does nothing when no trace
 * is being collected (plain production use). Called outside any observed function it
 * throws a ConfigError: a mistake to fix, not something to record.
 * @example
 * const generate = observe(
 *   async (question: string, chunks: string[]) => {
 *     const answer = await llm(question, chunks);
 *     updateCurrentSpan({ testCase: { input: question, actualOutput: answer, retrievalContext: chunks } });
 *     return answer;
 *   },
 *   { type: "llm", metrics: [new AnswerRelevancyMetric()] },
 * );
 */
export function updateCurrentSpan(update: SpanUpdate): void {
  const frame = currentFrame();
  if (frame?.trace === null) return;
  if (frame === undefined || frame.span === null) {
    throw new ConfigError(
      "updateCurrentSpan() was called outside an observed function: call it inside a function " +
        "wrapped with observe(fn, { … }) or a method decorated with @observe(…)" +
        (frame ? " (the observedCallback itself is a span only when it is observed)." : "."),
    );
  }
  if (typeof update !== "object" || update === null) {
    throw new ConfigError(
      `updateCurrentSpan() takes an object of fields, e.g. updateCurrentSpan({ testCase }); got ${typeof update}.`,
    );
  }
  const { span, trace } = frame;
  if (trace.sealed) return;
  span.fields = mergeFields({ recorded: span.fields, update, caller: "updateCurrentSpan()" });
  if (typeof update.name === "string" && update.name !== "") span.name = update.name;
  if (update.input !== undefined) span.input = toJsonValue(update.input);
  if (update.output !== undefined) span.output = toJsonValue(update.output);
}
