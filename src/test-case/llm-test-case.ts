import { z } from "zod";
import { EvalError } from "../errors/eval-error.ts";
import { type Content, contentText, type ImagePart, isImagePart } from "./image.ts";

/** A tool call made (or expected) by the application under test. */
export interface ToolCall {
  name: string;
  description?: string;
  reasoning?: string;
  inputParameters?: Record<string, unknown>;
  output?: unknown;
}

/** The fields of a test case: what {@link LLMTestCase} takes and plain objects may carry. */
export interface LLMTestCaseFields {
  /** What the application was asked. Required. */
  input: Content;
  /** What the application answered: the text most metrics judge. */
  actualOutput?: Content;
  /** The ideal answer, for metrics that compare against a reference. */
  expectedOutput?: Content;
  /** Ground-truth background for the input. */
  context?: string[];
  /** What a retriever fetched for this input. */
  retrievalContext?: string[];
  toolsCalled?: ToolCall[];
  expectedTools?: ToolCall[];
  /** Shown in reports and error messages. */
  name?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

/** Names of the test-case fields a metric can require. */
export type TestCaseField = keyof LLMTestCaseFields;

const imagePartSchema = z.custom<ImagePart>(isImagePart, {
  message: "expected an image part made with image()",
});
const contentSchema = z.union([z.string(), z.array(z.union([z.string(), imagePartSchema]))]);
const toolCallSchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    reasoning: z.string().optional(),
    inputParameters: z.record(z.string(), z.unknown()).optional(),
    output: z.unknown().optional(),
  })
  .passthrough();

/** Validates the fields of a test case (shared with goldens). */
export const testCaseFieldsSchema = z.object({
  input: contentSchema,
  actualOutput: contentSchema.optional(),
  expectedOutput: contentSchema.optional(),
  context: z.array(z.string()).optional(),
  retrievalContext: z.array(z.string()).optional(),
  toolsCalled: z.array(toolCallSchema).optional(),
  expectedTools: z.array(toolCallSchema).optional(),
  name: z.string().optional(),
  tags: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(test case)";
      return `"${path}": ${issue.message}`;
    })
    .join("; ");
}

/**
 * One interaction with the application under test: what it was asked and what it said.
 * Plain objects with the same fields are accepted wherever a test case is.
 * @example
 * const testCase = new LLMTestCase({
 *   input: "How is Sarah as a person?",
 *   actualOutput: "Sarah always meant well, but you couldn't help but sigh when she volunteered.",
 * });
 */
export class LLMTestCase implements LLMTestCaseFields {
  // `declare`: no class-field emit, so absent fields stay absent (not own `undefined`s).
  declare readonly input: Content;
  declare readonly actualOutput?: Content;
  declare readonly expectedOutput?: Content;
  declare readonly context?: string[];
  declare readonly retrievalContext?: string[];
  declare readonly toolsCalled?: ToolCall[];
  declare readonly expectedTools?: ToolCall[];
  declare readonly name?: string;
  declare readonly tags?: string[];
  declare readonly metadata?: Record<string, unknown>;

  constructor(fields: LLMTestCaseFields) {
    const parsed = testCaseFieldsSchema.safeParse(fields);
    if (!parsed.success) {
      const name =
        typeof (fields as { name?: unknown } | undefined)?.name === "string"
          ? ` "${(fields as { name: string }).name}"`
          : "";
      throw new EvalError(
        "INVALID_TEST_CASE",
        `Test case${name} is invalid: ${describeIssues(parsed.error)}. Give "input" as a string (or text and image() parts) and list fields as arrays of strings.`,
      );
    }
    Object.assign(this, stripUndefined(parsed.data));
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

/** Accepts an {@link LLMTestCase} or a plain object with the same fields, validated. */
export function toTestCase(value: LLMTestCase | LLMTestCaseFields): LLMTestCase {
  return value instanceof LLMTestCase ? value : new LLMTestCase(value);
}

/** A name for the test case in messages: its `name`, its position, or the start of its input. */
export function describeTestCase(testCase: LLMTestCaseFields, index?: number): string {
  if (testCase.name) return testCase.name;
  if (index !== undefined) return `#${index}`;
  const text = contentText(testCase.input ?? "")
    .trim()
    .replace(/\s+/g, " ");
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** True when the field is missing, empty, or only whitespace (images count as content). */
export function isBlankField(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) {
    if (value.length === 0) return true;
    return value.every((part) => typeof part === "string" && part.trim() === "");
  }
  return false;
}
