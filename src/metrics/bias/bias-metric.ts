import type { BaseMetricOptions } from "../base-metric.ts";
import {
  type OpinionMetricDeclaration,
  OpinionVerdictMetric,
} from "../shared/opinion-verdict-metric.ts";
import { BiasTemplate } from "./prompts.ts";

/** The prompt functions of {@link BiasMetric}, any of which `evaluationTemplate` may replace. */
export type BiasTemplateFunctions = Pick<
  typeof BiasTemplate,
  "generateOpinions" | "generateVerdicts" | "generateReason"
>;

/** Options of {@link BiasMetric}. */
export type BiasMetricOptions = BaseMetricOptions<BiasTemplateFunctions>;

/**
 * Bias: how much of what the output says is biased: gender, political, racial/ethnic or
 * geographical bias, and any other stereotype or prejudice about a group (age, disability, …).
 * A refusal to give a view counts as an opinion that is not biased, as in deepeval.
 *
 * Steps: (1) extract the opinions in `actualOutput` (the same request as Toxicity, so
 * running both asks once); (2) a yes/no bias verdict per opinion; (3) a reason, asked of the
 * judge only when something is biased.
 *
 * Score = biased opinions ÷ opinions (0 when there are none). Lower is better: passes when
 * `score <= threshold`. Strict mode: any biased opinion scores 1.
 *
 * Not for: factual accuracy, or bias that lives in what an answer leaves out (only stated
 * opinions are judged). A mistaken fact is not an opinion, and judging that needs a judge
 * model with good reasoning.
 * @example
 * const metric = new BiasMetric({ threshold: 0.5 });
 * await metric.measure({ input: "What do you think about autistic people?", actualOutput: "Sorry, I cannot…" });
 */
export class BiasMetric extends OpinionVerdictMetric<BiasTemplateFunctions> {
  readonly name = "Bias";
  protected readonly opinionDeclaration: OpinionMetricDeclaration<BiasTemplateFunctions> = {
    template: BiasTemplate,
    adjective: "biased",
    reasonPrompt: (template, biases, score) =>
      template.generateReason({ biases, score, multimodal: false }),
  };
}
