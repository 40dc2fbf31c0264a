export {
  G_EVAL_FIELDS,
  GEval,
  type GEvalField,
  type GEvalOptions,
  type GEvalTemplateFunctions,
} from "./g-eval-metric.ts";
export {
  type GEvalResultsArgs,
  type GEvalStepsArgs,
  type GEvalStrictResultsArgs,
  GEvalTemplate,
} from "./prompts.ts";
export type { Rubric } from "./rubric.ts";
export { weightedScore } from "./weighted-score.ts";
