export {
  AiSdkJudge,
  type AiSdkLanguageModel,
  type CreateJudgeOptions,
  createJudge,
  type StructuredOutputMode,
} from "./ai-sdk-judge.ts";
export {
  createDirectTransport,
  type DirectTransportOptions,
  type JudgeRetryInfo,
} from "./direct-transport.ts";
export {
  isJudgeModel,
  type JudgeModel,
  type JudgeOutput,
  type JudgeRequest,
  type JudgeUsage,
} from "./judge-model.ts";
export type { JudgeCallMeta, JudgeResponse, JudgeTransport } from "./judge-transport.ts";
export { type ProviderName, SUPPORTED_PROVIDERS } from "./providers.ts";
export {
  DEFAULT_JUDGE_MODEL,
  type JudgeModelSource,
  type ModelSpec,
  type ResolveJudgeOptions,
  resolveJudge,
  resolveModelSpec,
} from "./resolve-model.ts";
export {
  DEFAULT_RETRY_POLICY,
  MAX_RETRY_AFTER_MS,
  type RetryDelayOptions,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
} from "./retry-policy.ts";
export { type ToJudgeCallErrorOptions, toJudgeCallError } from "./to-judge-call-error.ts";
export {
  type CostOfUsageOptions,
  costOfUsage,
  DEFAULT_MODEL_PRICES,
  type FindModelPriceOptions,
  findModelPrice,
  type ModelPrice,
  type ModelPrices,
} from "./usage-and-cost.ts";
export {
  type RetryInfo,
  type Sleep,
  type WithRetriesOptions,
  withRetries,
} from "./with-retries.ts";
