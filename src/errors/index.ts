export {
  BudgetExhaustedError,
  type BudgetExhaustedErrorOptions,
} from "./budget-exhausted-error.ts";
export { ConfigError } from "./config-error.ts";
export { EvalError, type EvalErrorCode, type EvalErrorOptions } from "./eval-error.ts";
export {
  FineTuningReadError,
  type FineTuningReadErrorOptions,
} from "./fine-tuning-read-error.ts";
export {
  JudgeCallError,
  type JudgeCallErrorKind,
  type JudgeCallErrorOptions,
} from "./judge-call-error.ts";
export { JudgeOutputError, type JudgeOutputErrorOptions } from "./judge-output-error.ts";
export {
  MissingTestCaseParamsError,
  type MissingTestCaseParamsErrorOptions,
} from "./missing-test-case-params-error.ts";
export { StoreError } from "./store-error.ts";
