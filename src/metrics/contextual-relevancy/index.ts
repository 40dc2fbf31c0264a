export {
  ContextualRelevancyMetric,
  type ContextualRelevancyMetricOptions,
  type ContextualRelevancyTemplateFunctions,
} from "./contextual-relevancy-metric.ts";
export {
  type ContextualRelevancyReasonArgs,
  ContextualRelevancyTemplate,
  type ContextualRelevancyVerdictsArgs,
} from "./prompts.ts";
