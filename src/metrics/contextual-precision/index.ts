export {
  ContextualPrecisionMetric,
  type ContextualPrecisionMetricOptions,
  type ContextualPrecisionTemplateFunctions,
} from "./contextual-precision-metric.ts";
export {
  type ContextualPrecisionNodeVerdict,
  type ContextualPrecisionReasonArgs,
  ContextualPrecisionTemplate,
  type ContextualPrecisionVerdictsArgs,
} from "./prompts.ts";
