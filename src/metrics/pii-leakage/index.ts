export {
  PIILeakageMetric,
  type PIILeakageMetricOptions,
  type PIILeakageTemplateFunctions,
} from "./pii-leakage-metric.ts";
export {
  type PIILeakageExtractArgs,
  type PIILeakageReasonArgs,
  PIILeakageTemplate,
  type PIILeakageVerdictsArgs,
} from "./prompts.ts";
