export type {
  EvaluationResult,
  EvaluationSummary,
  MetricSummary,
  RunStatus,
  TestResult,
  TrialResult,
} from "../results/evaluation-result.ts";
export type {
  MetricEndEvent,
  RunEndEvent,
  RunnerEvent,
  RunReporter,
  RunStartEvent,
  TestCaseEndEvent,
} from "../results/runner-events.ts";
export type { DisplayOption } from "./default-reporters.ts";
export { type EvaluateOptions, evaluate } from "./evaluate.ts";
export type { ComponentEvaluateOptions } from "./evaluate-components.ts";
export { judgeCacheKey } from "./judge-cache-key.ts";
export type { RunStoreOption } from "./run-recorder.ts";
export {
  type CacheMode,
  JudgeScheduler,
  type JudgeSchedulerOptions,
  type SchedulerStats,
} from "./scheduler.ts";
