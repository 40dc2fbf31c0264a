export {
  type ToxicityReasonArgs,
  ToxicityTemplate,
  type ToxicityVerdictsArgs,
} from "./prompts.ts";
export {
  ToxicityMetric,
  type ToxicityMetricOptions,
  type ToxicityTemplateFunctions,
} from "./toxicity-metric.ts";
