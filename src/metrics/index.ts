export type { MetricData } from "../results/metric-data.ts";
export * from "./answer-relevancy/index.ts";
export {
  BaseMetric,
  type BaseMetricOptions,
  type MetricContext,
  type MetricRunOptions,
  type MetricRunResult,
  type ReasonPlan,
  type ScoredSteps,
  type VerboseStep,
} from "./base-metric.ts";
export * from "./bias/index.ts";
export type { GenerateOpinionsArgs } from "./shared/opinions.ts";
export { normalizeVerdict } from "./shared/verdicts.ts";
export * from "./toxicity/index.ts";
