import { z } from "zod";
import { EvalError } from "../errors/eval-error.ts";
import { type Content, contentText } from "./image.ts";
import { imagePartProblem } from "./image-part-problem.ts";

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

/** A short description of a wrong value's type, for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") {
    const name = (value as object).constructor?.name;
    return name && name !== "Object" ? `a ${name}` : "an object";
  }
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

const contentSchema = z.custom<Content>().superRefine((value, context) => {
  if (typeof value === "string") return;
  if (!Array.isArray(value)) {
    context.addIssue({
      code: "custom",
      message: `must be text, or a list of text and image() parts; got ${describeValue(value)}`,
    });
    return;
  }
  for (const [index, part] of value.entries()) {
    if (typeof part === "string") continue;
    const isImageLike =
      typeof part === "object" && part !== null && (part as { type?: unknown }).type === "image";
    const problem = isImageLike ? imagePartProblem(part) : null;
    if (isImageLike && problem === null) continue;
    context.addIssue({
      code: "custom",
      path: [index],
      message: isImageLike
        ? `is an image part that ${problem}: make image parts with image(url | path | bytes)`
        : `must be text or an image part made with image(); got ${describeValue(part)}`,
    });
  }
});
/** Any object: its values may be anything (stored as JSON, converted where they are not). */
const metadataSchema = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { message: "must be an object of keys and values" },
);
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
  metadata: metadataSchema.optional(),
});

/** Where an issue is, as code would write it: `input[1]`, `toolsCalled[0].name`. */
function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((key, position) =>
      typeof key === "number" ? `[${key}]` : `${position === 0 ? "" : "."}${String(key)}`,
    )
    .join("");
}

/** The problems of test-case fields, each naming its field: `"input[1]": …; "tags": …`. */
export function describeIssues(error: z.ZodError, whole = "(test case)"): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issuePath(issue.path) : whole;
      return `"${path}": ${issue.message}`;
    })
    .join("; ");
}

/** The first field a validation error is about (`input`, `metadata`, …), if any. */
export function firstIssueField(error: z.ZodError): string | null {
  const key = error.issues[0]?.path[0];
  return key === undefined ? null : String(key);
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
    const parsed = safeParseFields(testCaseFieldsSchema, fields);
    if (!parsed.success) {
      const name = nameOf(fields);
      const problem = describeIssues(parsed.error);
      // `problem` keeps the field-level description for callers that name the case themselves.
      throw Object.assign(
        new EvalError(
          "INVALID_TEST_CASE",
          `Test case${name === null ? "" : ` "${name}"`} is invalid: ${problem}. Give "input" as a string (or text and image() parts) and list fields as arrays of strings.`,
          { cause: parsed.error },
        ),
        { problem },
      );
    }
    Object.assign(this, stripUndefined(parsed.data));
  }
}

/** The `name` a value gives itself, when it is a string (read safely: it may be anything). */
export function nameOf(value: unknown): string | null {
  try {
    const name = (value as { name?: unknown } | null | undefined)?.name;
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
}

/** Parses fields; a value whose reading throws (a getter, a proxy) is an issue, not a crash. */
export function safeParseFields<Schema extends z.ZodType>(
  schema: Schema,
  fields: unknown,
): ReturnType<Schema["safeParse"]> {
  try {
    return schema.safeParse(fields) as ReturnType<Schema["safeParse"]>;
  } catch (error) {
    const message = `cannot be read (${error instanceof Error ? error.message : String(error)})`;
    return {
      success: false,
      error: new z.ZodError([{ code: "custom", path: [], message, input: fields }]),
    } as ReturnType<Schema["safeParse"]>;
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

/** Accepts an {@link LLMTestCase} or a plain object with the same fields, validated. */
export function toTestCase(value: LLMTestCase | LLMTestCaseFields): LLMTestCase {
  return value instanceof LLMTestCase ? value : new LLMTestCase(value);
}

/**
 * A name for the test case in messages: its `name`, its position counted from 1 as people
 * count (`#1` for `index` 0), or the start of its input.
 */
export function describeTestCase(testCase: LLMTestCaseFields, index?: number): string {
  if (testCase.name) return testCase.name;
  if (index !== undefined) return `#${index + 1}`;
  const text = contentText(testCase.input ?? "")
    .trim()
    .replace(/\s+/g, " ");
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

// Whitespace, control and format characters (zero-width spaces and joiners, word joiner,
// byte-order mark, bidi marks), every default-ignorable code point (Hangul fillers,
// variation selectors, …) and the braille blank: text made only of these shows nothing.
const INVISIBLE = /^[\s\p{Cc}\p{Cf}\p{Zs}\p{Default_Ignorable_Code_Point}\u2800]*$/u;

/** True when text shows nothing: empty, or only whitespace and invisible characters. */
export function isBlankText(text: string): boolean {
  return INVISIBLE.test(text);
}

/**
 * True when the field is missing, empty, or shows nothing (only whitespace or invisible
 * characters such as zero-width spaces); images count as content.
 */
export function isBlankField(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return isBlankText(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return true;
    return value.every((part) => typeof part === "string" && isBlankText(part));
  }
  return false;
}
