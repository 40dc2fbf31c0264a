export {
  NonAdviceMetric,
  type NonAdviceMetricOptions,
  type NonAdviceTemplateFunctions,
} from "./non-advice-metric.ts";
export {
  type NonAdviceAdvicesArgs,
  type NonAdviceReasonArgs,
  NonAdviceTemplate,
  type NonAdviceVerdictsArgs,
} from "./prompts.ts";
