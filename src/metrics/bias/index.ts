export { BiasMetric, type BiasMetricOptions, type BiasTemplateFunctions } from "./bias-metric.ts";
export { type BiasReasonArgs, BiasTemplate, type BiasVerdictsArgs } from "./prompts.ts";
