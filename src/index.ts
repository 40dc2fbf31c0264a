/**
 * verdict: LLM-as-a-judge evaluation for TypeScript.
 * @packageDocumentation
 */
export {
  ConfigError,
  EvalError,
  type EvalErrorCode,
  JudgeCallError,
  JudgeOutputError,
  MissingTestCaseParamsError,
  StoreError,
} from "./errors/index.ts";
