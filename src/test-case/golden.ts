import { z } from "zod";
import { EvalError } from "../errors/eval-error.ts";
import { type Content, contentText } from "./image.ts";
import {
  describeIssues,
  LLMTestCase,
  type LLMTestCaseFields,
  nameOf,
  safeParseFields,
  type ToolCall,
  testCaseFieldsSchema,
} from "./llm-test-case.ts";

/** The fields of a golden: those of a test case (only `input` required), plus notes. */
export interface GoldenFields extends LLMTestCaseFields {
  /** Notes for people reading the dataset. */
  comments?: string;
}

const goldenSchema = testCaseFieldsSchema.extend({ comments: z.string().optional() });

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
    const parsed = safeParseFields(goldenSchema, fields);
    if (!parsed.success) {
      const name = nameOf(fields);
      const problem = describeIssues(parsed.error, "(golden)");
      throw Object.assign(
        new EvalError(
          "INVALID_TEST_CASE",
          `Golden${name === null ? "" : ` "${name}"`} is invalid: ${problem}. Give "input" as a string (or text and image() parts) and list fields as arrays of strings.`,
          { cause: parsed.error },
        ),
        { problem },
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

/** A name for a golden in messages: `golden #3 "name"` or `golden #3 ("What is…")`. */
export function describeGolden(options: { golden: Golden; index: number }): string {
  const { golden, index } = options;
  if (golden.name !== undefined) return `golden #${index} "${golden.name}"`;
  const text = contentText(golden.input).trim().replace(/\s+/g, " ");
  return `golden #${index} (${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)})`;
}
