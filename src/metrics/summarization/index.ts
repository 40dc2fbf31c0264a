export type { CoverageVerdict } from "./coverage.ts";
export {
  type SummarizationAnswersArgs,
  type SummarizationQuestionsArgs,
  type SummarizationReasonArgs,
  SummarizationTemplate,
} from "./prompts.ts";
export {
  SummarizationMetric,
  type SummarizationMetricOptions,
  type SummarizationScoreBreakdown,
  type SummarizationTemplateFunctions,
} from "./summarization-metric.ts";
