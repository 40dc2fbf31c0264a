/**
 * verdict: LLM-as-a-judge evaluation for TypeScript.
 * @packageDocumentation
 */

export * from "./dataset/index.ts";
export {
  ConfigError,
  EvalError,
  type EvalErrorCode,
  JudgeCallError,
  JudgeOutputError,
  MissingTestCaseParamsError,
  StoreError,
} from "./errors/index.ts";
export * from "./evaluate/index.ts";
export * from "./judge/index.ts";
export * from "./metrics/index.ts";
export * from "./report/index.ts";
export * from "./store/index.ts";
export * from "./test-case/index.ts";
export * from "./tracing/index.ts";
