import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import type { Golden } from "../test-case/golden.ts";
import type { Content } from "../test-case/image.ts";
import type { LLMTestCase, LLMTestCaseFields, ToolCall } from "../test-case/llm-test-case.ts";
import { TestCaseBuildError, type TestCaseBuildFailure } from "./test-case-build-error.ts";

/** What an application returns for a golden: its answer, or its answer with what it used. */
export type ApplicationOutput =
  | Content
  | {
      actualOutput: Content;
      retrievalContext?: string[];
      context?: string[];
      toolsCalled?: ToolCall[];
    };

/** The application under test: answers a golden's input (sync or async). */
export type GoldenApplication = (
  input: Content,
  golden: Golden,
) => ApplicationOutput | Promise<ApplicationOutput>;

/** Options of {@link buildTestCases}. */
export interface BuildTestCasesOptions {
  goldens: readonly Golden[];
  /** Called once per golden with its input and the golden itself. */
  application: GoldenApplication;
  /** Application calls in flight at once. @default 8 */
  concurrency?: number;
}

const OUTPUT_KEYS = new Set(["actualOutput", "retrievalContext", "context", "toolsCalled"]);
const OUTPUT_SHAPE =
  "return the answer as a string (or text and image parts), or { actualOutput, retrievalContext?, context?, toolsCalled? }";

function overridesFrom(output: unknown): Partial<LLMTestCaseFields> {
  if (typeof output === "string" || Array.isArray(output)) return { actualOutput: output };
  if (typeof output !== "object" || output === null) {
    throw new EvalError(
      "INVALID_TEST_CASE",
      `the application returned ${output === null || output === undefined ? String(output) : `a ${typeof output}`}: ${OUTPUT_SHAPE}.`,
    );
  }
  const unknown = Object.keys(output).filter((key) => !OUTPUT_KEYS.has(key));
  if (unknown.length > 0 || (output as { actualOutput?: unknown }).actualOutput === undefined) {
    const problem =
      unknown.length > 0
        ? `unknown keys ${unknown.map((key) => `"${key}"`).join(", ")}`
        : 'no "actualOutput"';
    throw new EvalError(
      "INVALID_TEST_CASE",
      `the application returned an object with ${problem}: ${OUTPUT_SHAPE}.`,
    );
  }
  return Object.fromEntries(
    Object.entries(output).filter(([, value]) => value !== undefined),
  ) as Partial<LLMTestCaseFields>;
}

/**
 * Builds a test case from each golden by asking the application, at most `concurrency` at
 * a time; results are in golden order. Every golden is tried: failures are collected and
 * raised together at the end.
 * @throws TestCaseBuildError listing the goldens that failed and why, with the test cases
 * of the others on `testCases`.
 * @example
 * const testCases = await buildTestCases({ goldens, application: (input) => chatbot.answer(input) });
 */
export async function buildTestCases(options: BuildTestCasesOptions): Promise<LLMTestCase[]> {
  const { goldens, application } = options;
  const concurrency = options.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigError(`concurrency must be a whole number of at least 1, got ${concurrency}.`);
  }
  if (typeof application !== "function") {
    throw new ConfigError("application must be a function (input, golden) => answer.");
  }
  const testCases: Array<LLMTestCase | undefined> = new Array(goldens.length);
  const failures: TestCaseBuildFailure[] = [];
  let next = 0;
  const work = async () => {
    while (next < goldens.length) {
      const index = next++;
      const golden = goldens[index] as Golden;
      try {
        const output = await application(golden.input, golden);
        testCases[index] = golden.toTestCase(overridesFrom(output));
      } catch (error) {
        failures.push({ index, golden, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, goldens.length) }, work));
  const built = testCases.filter((testCase) => testCase !== undefined);
  if (failures.length > 0) {
    failures.sort((left, right) => left.index - right.index);
    throw new TestCaseBuildError({ failures, testCases: built, total: goldens.length });
  }
  return built;
}
