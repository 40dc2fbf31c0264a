import { redactSecretText } from "../secrets/redact-secrets.ts";
import { EvalError } from "./eval-error.ts";

/** Options of {@link MissingTestCaseParamsError}. */
export interface MissingTestCaseParamsErrorOptions {
  /** Name of the metric that needs the field, e.g. `"Bias"`. */
  metric: string;
  /** The missing field, e.g. `"actualOutput"`. */
  field: string;
  /** Name of the test case (its `name`, or `test case #<index>`). */
  testCase: string;
}

/** A metric needs a test-case field that is missing, empty or only whitespace. */
export class MissingTestCaseParamsError extends EvalError {
  readonly metric: string;
  readonly field: string;
  readonly testCase: string;

  constructor(options: MissingTestCaseParamsErrorOptions) {
    super(
      "MISSING_TEST_CASE_PARAMS",
      `Metric "${options.metric}" needs "${options.field}" on test case "${options.testCase}": ` +
        "add it, or skip this metric where it is missing: skipOnMissingParams: true in code, " +
        "-s (--skip-on-missing-params) with `verdict test run`.",
    );
    this.metric = options.metric;
    this.field = options.field;
    this.testCase = redactSecretText(options.testCase);
  }
}
