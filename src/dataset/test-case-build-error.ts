import { cleanErrorCause } from "../errors/clean-error-cause.ts";
import { EvalError } from "../errors/eval-error.ts";
import { describeGolden, type Golden } from "../test-case/golden.ts";
import type { LLMTestCase } from "../test-case/llm-test-case.ts";

/** One golden the application failed on. */
export interface TestCaseBuildFailure {
  /** Position of the golden in the dataset (0-based). */
  index: number;
  golden: Golden;
  /**
   * What the application threw (a cleaned copy: name, message, status, code and stack, secrets
   * masked), or why its answer could not make a test case.
   */
  error: unknown;
}

/** Options of {@link TestCaseBuildError}. */
export interface TestCaseBuildErrorOptions {
  failures: readonly TestCaseBuildFailure[];
  /** The test cases built for the other goldens, in golden order. */
  testCases: readonly LLMTestCase[];
  /** How many goldens there were. */
  total: number;
}

const LISTED_FAILURES = 5;

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message.replace(/\.$/, "");
  // verdict's own messages say what they are; a TypeError from the application should say so.
  return error instanceof EvalError || error.name === "Error"
    ? message
    : `${error.name}: ${message}`;
}

/**
 * Building test cases from goldens failed for some goldens: the application threw, or gave
 * an answer that is not a test-case output. Lists which goldens and why; the test cases of
 * the others are on `testCases`, so a run can go on with them. Code `INVALID_TEST_CASE`.
 */
export class TestCaseBuildError extends EvalError {
  readonly failures: readonly TestCaseBuildFailure[];
  readonly testCases: readonly LLMTestCase[];

  constructor(options: TestCaseBuildErrorOptions) {
    const { failures, testCases, total } = options;
    const listed = failures
      .slice(0, LISTED_FAILURES)
      .map((failure) => `${describeGolden(failure)}: ${reasonOf(failure.error)}`)
      .join("; ");
    const more =
      failures.length > LISTED_FAILURES ? `; and ${failures.length - LISTED_FAILURES} more` : "";
    super(
      "INVALID_TEST_CASE",
      `The application failed on ${failures.length} of ${total} goldens: ${listed}${more}. ` +
        `Fix the application (or those goldens); the ${testCases.length} test cases built are on this error's testCases and failures lists every failure.`,
      { cause: failures[0]?.error },
    );
    // What the application threw may be a provider error with its request and headers.
    this.failures = failures.map((failure) => ({
      ...failure,
      error: cleanErrorCause(failure.error),
    }));
    this.testCases = testCases;
  }
}
