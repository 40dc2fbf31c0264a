export {
  AnswerRelevancyMetric,
  type AnswerRelevancyMetricOptions,
  type AnswerRelevancyTemplateFunctions,
} from "./answer-relevancy-metric.ts";
export {
  type AnswerRelevancyReasonArgs,
  type AnswerRelevancyStatementsArgs,
  AnswerRelevancyTemplate,
  type AnswerRelevancyVerdictsArgs,
} from "./prompts.ts";
