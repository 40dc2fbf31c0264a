export {
  MisuseMetric,
  type MisuseMetricOptions,
  type MisuseTemplateFunctions,
} from "./misuse-metric.ts";
export {
  type MisuseMisusesArgs,
  type MisuseReasonArgs,
  MisuseTemplate,
  type MisuseVerdictsArgs,
} from "./prompts.ts";
