export {
  FaithfulnessMetric,
  type FaithfulnessMetricOptions,
  type FaithfulnessTemplateFunctions,
} from "./faithfulness-metric.ts";
export { type FaithfulnessReasonArgs, FaithfulnessTemplate } from "./prompts.ts";
