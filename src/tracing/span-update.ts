import type { LLMTestCase, LLMTestCaseFields, ToolCall } from "../test-case/llm-test-case.ts";

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
