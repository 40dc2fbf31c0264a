export {
  HallucinationMetric,
  type HallucinationMetricOptions,
  type HallucinationTemplateFunctions,
} from "./hallucination-metric.ts";
export {
  type HallucinationReasonArgs,
  HallucinationTemplate,
  type HallucinationVerdictsArgs,
} from "./prompts.ts";
