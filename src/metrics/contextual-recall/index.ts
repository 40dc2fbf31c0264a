export {
  ContextualRecallMetric,
  type ContextualRecallMetricOptions,
  type ContextualRecallTemplateFunctions,
} from "./contextual-recall-metric.ts";
export {
  type ContextualRecallReasonArgs,
  ContextualRecallTemplate,
  type ContextualRecallVerdictsArgs,
} from "./prompts.ts";
