import { z } from "zod";
import { EvalError } from "../errors/eval-error.ts";
import { type Content, type ImagePart, isImagePart } from "./image.ts";
import { LLMTestCase, type LLMTestCaseFields, type ToolCall } from "./llm-test-case.ts";

/** The fields of a golden: an input to send to the application, and what is known about it. */
export interface GoldenFields {
  /** What to ask the application. Required. */
  input: Content;
  /** A pre-recorded answer, when the golden already has one. */
  actualOutput?: Content;
  /** The ideal answer. */
  expectedOutput?: Content;
  context?: string[];
  retrievalContext?: string[];
  toolsCalled?: ToolCall[];
  expectedTools?: ToolCall[];
  name?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  /** Notes for people reading the dataset. */
  comments?: string;
}

const contentSchema = z.union([
  z.string(),
  z.array(
    z.union([
      z.string(),
      z.custom<ImagePart>(isImagePart, { message: "expected an image part made with image()" }),
    ]),
  ),
]);

const goldenSchema = z.object({
  input: contentSchema,
  actualOutput: contentSchema.optional(),
  expectedOutput: contentSchema.optional(),
  context: z.array(z.string()).optional(),
  retrievalContext: z.array(z.string()).optional(),
  toolsCalled: z.array(z.object({ name: z.string() }).passthrough()).optional(),
  expectedTools: z.array(z.object({ name: z.string() }).passthrough()).optional(),
  name: z.string().optional(),
  tags: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  comments: z.string().optional(),
});

/**
 * A test input without (necessarily) an answer: datasets hold goldens, and an application
 * turns each into a test case by answering its input.
 * @example
 * const golden = new Golden({ input: "What if these shoes don't fit?", expectedOutput: "A 30-day refund." });
 * const testCase = golden.toTestCase({ actualOutput: await app(golden.input) });
 */
export class Golden implements GoldenFields {
  // `declare`: no class-field emit, so absent fields stay absent.
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
  declare readonly comments?: string;

  constructor(fields: GoldenFields) {
    const parsed = goldenSchema.safeParse(fields);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((issue) => `"${issue.path.join(".") || "(golden)"}": ${issue.message}`)
        .join("; ");
      throw new EvalError(
        "INVALID_TEST_CASE",
        `Golden${fields?.name ? ` "${fields.name}"` : ""} is invalid: ${issues}. Give "input" as a string (or text and image() parts) and list fields as arrays of strings.`,
      );
    }
    for (const [key, value] of Object.entries(parsed.data)) {
      if (value !== undefined) Object.assign(this, { [key]: value });
    }
  }

  /** A test case from this golden, with the application's answer and any field overridden. */
  toTestCase(overrides: Partial<LLMTestCaseFields> = {}): LLMTestCase {
    const { comments: _comments, ...fields } = this as GoldenFields;
    return new LLMTestCase({ ...fields, ...overrides });
  }
}
