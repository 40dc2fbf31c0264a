/**
 * verdict: LLM-as-a-judge evaluation for TypeScript.
 *
 * The core (SPEC §2): metrics, their templates and `BaseMetric` for new ones, test cases,
 * `evaluate`, `createJudge` and the `JudgeModel` contract, errors, tracing, and the types of
 * everything evaluate() returns — what a script that scores cases loads, and no more. The rest
 * has entry points of its own, loaded only by who imports them: `verdict/stores`,
 * `verdict/reporters`, `verdict/calibrate`, `verdict/finetune` (and `verdict/testing`,
 * `verdict/vitest`). `src/api.test.ts` lists every entry point's exports and fails on an
 * unplanned addition.
 * @packageDocumentation
 */

/**
 * zod, as verdict uses it: the schemas of a metric's judge steps and options
 * (`defineMetric`), without a zod dependency of your own.
 */
export { z } from "zod";
// Calibration (calibrate() is in "verdict/calibrate")
export type { CalibrateOptions, CalibrationMetricName } from "./calibrate/calibrate.ts";
export { DatasetFileError } from "./dataset/dataset-file-error.ts";
// Datasets
export type { DatasetFormat } from "./dataset/dataset-format.ts";
export {
  EvaluationDataset,
  type EvaluationDatasetOptions,
  type ToTestCasesOptions,
} from "./dataset/evaluation-dataset.ts";
export type { GoldenColumns, GoldenField } from "./dataset/golden-columns.ts";
export type { LabelValue } from "./dataset/read-labelled-rows.ts";
export { TestCaseBuildError, type TestCaseBuildFailure } from "./dataset/test-case-build-error.ts";
// Errors
export {
  BudgetExhaustedError,
  type BudgetExhaustedErrorOptions,
} from "./errors/budget-exhausted-error.ts";
export { ConfigError } from "./errors/config-error.ts";
export { EvalError, type EvalErrorCode } from "./errors/eval-error.ts";
export {
  FineTuningReadError,
  type FineTuningReadErrorOptions,
} from "./errors/fine-tuning-read-error.ts";
export { JudgeCallError, type JudgeCallErrorKind } from "./errors/judge-call-error.ts";
export { JudgeOutputError } from "./errors/judge-output-error.ts";
export { MissingTestCaseParamsError } from "./errors/missing-test-case-params-error.ts";
export { StoreError } from "./errors/store-error.ts";
// Running
export type { BatchOptions } from "./evaluate/batch-options.ts";
export type { DisplayOption } from "./evaluate/default-reporters.ts";
export { type EvaluateOptions, evaluate } from "./evaluate/evaluate.ts";
export type { ComponentEvaluateOptions } from "./evaluate/evaluate-components.ts";
export type { CacheMode } from "./evaluate/judge-scheduler-options.ts";
export type { RunBudget, RunOptions } from "./evaluate/run-options.ts";
// Fine-tuning (evaluateCheckpoints and createEvaluationCallback are in "verdict/finetune")
export type { BestCheckpoint, CheckpointEvaluation } from "./finetune/best-checkpoint.ts";
export type { CheckpointMetadata } from "./finetune/checkpoint-runs.ts";
export type { CheckpointsOutcome, CheckpointsResult } from "./finetune/evaluate-checkpoints.ts";
export type { EvaluateCheckpointsOptions } from "./finetune/evaluate-checkpoints-options.ts";
export type {
  EpochEvaluation,
  EvaluationCallback,
  EvaluationCallbackOptions,
} from "./finetune/evaluation-callback.ts";
export type {
  FineTuningCheckpoint,
  FineTuningJobSource,
  FineTuningJobState,
} from "./finetune/fine-tuning-job.ts";
export type { GenerationSettings } from "./finetune/generate-outputs.ts";
// Judges
export {
  type AiSdkLanguageModel,
  type CreateJudgeOptions,
  createJudge,
  type StructuredOutputMode,
} from "./judge/ai-sdk-judge.ts";
export type {
  JudgeBatchApi,
  JudgeBatchCounts,
  JudgeBatchLine,
  JudgeBatchLineResult,
  JudgeBatchState,
  JudgeModel,
  JudgeOutput,
  JudgeRequest,
  JudgeTokenLogprob,
  JudgeUsage,
} from "./judge/judge-model.ts";
export type { ProviderName } from "./judge/providers.ts";
export type { ModelSpec } from "./judge/resolve-model.ts";
export type { RetryPolicy } from "./judge/retry-policy.ts";
export type { JudgeAnswerWithTokens, JudgeStep } from "./judge/structured-output.ts";
export type { ModelPrice, ModelPrices } from "./judge/usage-and-cost.ts";
// Metrics, their templates, and the base of new metrics
export {
  AnswerRelevancyMetric,
  type AnswerRelevancyMetricOptions,
  type AnswerRelevancyTemplateFunctions,
} from "./metrics/answer-relevancy/answer-relevancy-metric.ts";
export {
  type AnswerRelevancyReasonArgs,
  type AnswerRelevancyStatementsArgs,
  AnswerRelevancyTemplate,
  type AnswerRelevancyVerdictsArgs,
} from "./metrics/answer-relevancy/prompts.ts";
export {
  BaseMetric,
  type BaseMetricOptions,
  type MetricDeclaration,
  type MetricRunOptions,
} from "./metrics/base-metric.ts";
export {
  BiasMetric,
  type BiasMetricOptions,
  type BiasTemplateFunctions,
} from "./metrics/bias/bias-metric.ts";
export {
  type BiasReasonArgs,
  BiasTemplate,
  type BiasVerdictsArgs,
} from "./metrics/bias/prompts.ts";
export type { MetricOptionSpec, MetricOptionSpecs } from "./metrics/check-metric-options.ts";
export {
  ContextualPrecisionMetric,
  type ContextualPrecisionMetricOptions,
  type ContextualPrecisionTemplateFunctions,
} from "./metrics/contextual-precision/contextual-precision-metric.ts";
export {
  type ContextualPrecisionNodeVerdict,
  type ContextualPrecisionReasonArgs,
  ContextualPrecisionTemplate,
  type ContextualPrecisionVerdictsArgs,
} from "./metrics/contextual-precision/prompts.ts";
export {
  ContextualRecallMetric,
  type ContextualRecallMetricOptions,
  type ContextualRecallTemplateFunctions,
} from "./metrics/contextual-recall/contextual-recall-metric.ts";
export {
  type ContextualRecallReasonArgs,
  ContextualRecallTemplate,
  type ContextualRecallVerdictsArgs,
} from "./metrics/contextual-recall/prompts.ts";
export {
  ContextualRelevancyMetric,
  type ContextualRelevancyMetricOptions,
  type ContextualRelevancyTemplateFunctions,
} from "./metrics/contextual-relevancy/contextual-relevancy-metric.ts";
export {
  type ContextualRelevancyReasonArgs,
  ContextualRelevancyTemplate,
  type ContextualRelevancyVerdictsArgs,
} from "./metrics/contextual-relevancy/prompts.ts";
export {
  type DefinedEstimateContext,
  type DefinedMetricClass,
  type DefinedMetricContext,
  type DefinedMetricOptions,
  type DefinedMetricScore,
  defineMetric,
  type MetricDefinition,
  type MetricPrompts,
} from "./metrics/define-metric.ts";
export {
  FaithfulnessMetric,
  type FaithfulnessMetricOptions,
  type FaithfulnessTemplateFunctions,
} from "./metrics/faithfulness/faithfulness-metric.ts";
export {
  type FaithfulnessReasonArgs,
  FaithfulnessTemplate,
} from "./metrics/faithfulness/prompts.ts";
export {
  G_EVAL_FIELDS,
  GEval,
  type GEvalField,
  type GEvalOptions,
  type GEvalTemplateFunctions,
} from "./metrics/g-eval/g-eval-metric.ts";
export {
  type GEvalResultsArgs,
  type GEvalStepsArgs,
  type GEvalStrictResultsArgs,
  GEvalTemplate,
} from "./metrics/g-eval/prompts.ts";
export type { Rubric } from "./metrics/g-eval/rubric.ts";
export { weightedScore } from "./metrics/g-eval/weighted-score.ts";
export {
  HallucinationMetric,
  type HallucinationMetricOptions,
  type HallucinationTemplateFunctions,
} from "./metrics/hallucination/hallucination-metric.ts";
export {
  type HallucinationReasonArgs,
  HallucinationTemplate,
  type HallucinationVerdictsArgs,
} from "./metrics/hallucination/prompts.ts";
export type {
  MetricContext,
  MetricDetails,
  ReasonPlan,
  ScoredSteps,
  VerboseStep,
} from "./metrics/metric-context.ts";
export type { EstimateContext, StepEstimate } from "./metrics/metric-estimate.ts";
export type { MetricRunResult } from "./metrics/metric-run-result.ts";
export {
  MisuseMetric,
  type MisuseMetricOptions,
  type MisuseTemplateFunctions,
} from "./metrics/misuse/misuse-metric.ts";
export {
  type MisuseMisusesArgs,
  type MisuseReasonArgs,
  MisuseTemplate,
  type MisuseVerdictsArgs,
} from "./metrics/misuse/prompts.ts";
export {
  NonAdviceMetric,
  type NonAdviceMetricOptions,
  type NonAdviceTemplateFunctions,
} from "./metrics/non-advice/non-advice-metric.ts";
export {
  type NonAdviceAdvicesArgs,
  type NonAdviceReasonArgs,
  NonAdviceTemplate,
  type NonAdviceVerdictsArgs,
} from "./metrics/non-advice/prompts.ts";
export {
  PIILeakageMetric,
  type PIILeakageMetricOptions,
  type PIILeakageTemplateFunctions,
} from "./metrics/pii-leakage/pii-leakage-metric.ts";
export {
  type PIILeakageExtractArgs,
  type PIILeakageReasonArgs,
  PIILeakageTemplate,
  type PIILeakageVerdictsArgs,
} from "./metrics/pii-leakage/prompts.ts";
export {
  type RoleViolationDetectArgs,
  type RoleViolationReasonArgs,
  RoleViolationTemplate,
  type RoleViolationVerdictsArgs,
} from "./metrics/role-violation/prompts.ts";
export {
  RoleViolationMetric,
  type RoleViolationMetricOptions,
  type RoleViolationTemplateFunctions,
} from "./metrics/role-violation/role-violation-metric.ts";
export type { GenerateOpinionsArgs } from "./metrics/shared/opinions.ts";
export type {
  ClaimVerdict,
  GenerateClaimsArgs,
  GenerateClaimVerdictsArgs,
  GenerateTruthsArgs,
} from "./metrics/shared/truths-and-claims.ts";
export type { Verdict } from "./metrics/shared/verdicts.ts";
export type { CoverageVerdict } from "./metrics/summarization/coverage.ts";
export {
  type SummarizationAnswersArgs,
  type SummarizationQuestionsArgs,
  type SummarizationReasonArgs,
  SummarizationTemplate,
} from "./metrics/summarization/prompts.ts";
export {
  SummarizationMetric,
  type SummarizationMetricOptions,
  type SummarizationScoreBreakdown,
  type SummarizationTemplateFunctions,
} from "./metrics/summarization/summarization-metric.ts";
export {
  type ToxicityReasonArgs,
  ToxicityTemplate,
  type ToxicityVerdictsArgs,
} from "./metrics/toxicity/prompts.ts";
export {
  ToxicityMetric,
  type ToxicityMetricOptions,
  type ToxicityTemplateFunctions,
} from "./metrics/toxicity/toxicity-metric.ts";
// Reporters: their options (the reporters are in "verdict/reporters")
export type { ConsoleReporterOptions } from "./report/console-report.ts";
export type { HtmlReporterOptions } from "./report/html-report.ts";
export type {
  JsonReporterOptions,
  ParseJsonReportOptions,
  RenderJsonReportOptions,
} from "./report/json-report.ts";
export type { JUnitReporterOptions } from "./report/junit-report.ts";
export type { ProgressReporterOptions } from "./report/progress-reporter.ts";
// Results
export type {
  CalibrationData,
  CalibrationExample,
  CalibrationMetric,
  CalibrationReport,
  ConfusionMatrix,
  ThresholdChoice,
  UnscoredRow,
} from "./results/calibration-report.ts";
export type {
  CostEstimate,
  EstimateRange,
  MetricCostEstimate,
  SpendEstimate,
} from "./results/cost-estimate.ts";
export type {
  BudgetSummary,
  EvaluationResult,
  EvaluationSummary,
  JudgeSpending,
  MetricSummary,
  ResultImage,
  RunStatus,
  TestResult,
  TrialResult,
} from "./results/evaluation-result.ts";
export type { JudgeText, JudgeTextMode } from "./results/judge-text.ts";
export type { JudgeCallRecord, MetricData } from "./results/metric-data.ts";
export type {
  JudgeBatchEvent,
  MetricEndEvent,
  RunEndEvent,
  RunnerEvent,
  RunReporter,
  RunStartEvent,
  TestCaseEndEvent,
} from "./results/runner-events.ts";
export type { Interval } from "./results/statistics.ts";
export type {
  JsonValue,
  SpanRecord,
  SpanType,
  TestCaseRecord,
  TraceRecord,
} from "./results/trace-record.ts";
// Secrets: the masking every store and report applies (for stores of your own)
export { redactSecrets, redactSecretText } from "./secrets/redact-secrets.ts";
// Stores: their types (the stores, openStore and readTestResults are in "verdict/stores")
export type { OpenedStore, OpenStoreOptions, StoreOption } from "./store/open-store.ts";
export type { PostgresRunStoreOptions } from "./store/postgres-run-store.ts";
export type {
  CachedJudgeAnswer,
  FinishRunOptions,
  JudgeBatchLog,
  JudgeCache,
  JudgeCacheClaim,
  JudgeCacheEntry,
  JudgeCacheLease,
  JudgeLeases,
  RunOwner,
  RunShard,
  StartRunPartOptions,
  Store,
  StoreCalibrations,
  StoredJudgeBatch,
  StoredRun,
  StoredRunPart,
  StoredTestResult,
  StoreRuns,
  StoreShards,
  TestResultsVersion,
} from "./store/run-store.ts";
export type { OpenSqliteRunStoreOptions, SqliteRunStoreOptions } from "./store/sqlite-run-store.ts";
// Test cases and images
export { Golden, type GoldenFields } from "./test-case/golden.ts";
export {
  type Content,
  type ImageOptions,
  type ImagePart,
  type ImageSource,
  image,
  type MultimodalContent,
  mm,
} from "./test-case/image.ts";
export {
  LLMTestCase,
  type LLMTestCaseFields,
  type TestCaseField,
  type ToolCall,
} from "./test-case/llm-test-case.ts";
// Tracing and component-level evaluation
export { type ObserveDecorator, type ObserveOptions, observe } from "./tracing/observe.ts";
export type { SpanUpdate } from "./tracing/span-update.ts";
export { updateCurrentSpan } from "./tracing/update-current-span.ts";
export { type TraceUpdate, updateCurrentTrace } from "./tracing/update-current-trace.ts";
