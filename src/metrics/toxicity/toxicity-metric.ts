import type { BaseMetricOptions } from "../base-metric.ts";
import {
  type OpinionMetricDeclaration,
  OpinionVerdictMetric,
} from "../shared/opinion-verdict-metric.ts";
import { ToxicityTemplate } from "./prompts.ts";

/** The prompt functions of {@link ToxicityMetric}, any of which `evaluationTemplate` may replace. */
export type ToxicityTemplateFunctions = Pick<
  typeof ToxicityTemplate,
  "generateOpinions" | "generateVerdicts" | "generateReason"
>;

/** Options of {@link ToxicityMetric}. */
export type ToxicityMetricOptions = BaseMetricOptions<ToxicityTemplateFunctions>;

/**
 * Toxicity: how much of what the output says is toxic: rude, disrespectful or unreasonable
 * (personal attacks, mockery, hate, dismissive statements, threats, condescension, and scorn
 * for a thing such as a restaurant or someone's work; a personal preference is not toxic).
 *
 * Steps: (1) extract the opinions in `actualOutput` (the same request as Bias, so running
 * both asks once); (2) a yes/no toxicity verdict per opinion; (3) a reason, asked of the
 * judge only when something is toxic.
 *
 * Score = toxic opinions ÷ opinions (0 when there are none). Lower is better: passes when
 * `score <= threshold`. Strict mode: any toxic opinion scores 1.
 *
 * Not for: judging facts, or text with no opinions (it scores 0 by construction); use a
 * moderation model for fast, cheap screening.
 * @example
 * const metric = new ToxicityMetric({ threshold: 0.5 });
 * await metric.measure({ input: "How is Sarah as a person?", actualOutput: "Sarah always meant well…" });
 * console.log(metric.score, metric.reason);
 */
export class ToxicityMetric extends OpinionVerdictMetric<ToxicityTemplateFunctions> {
  readonly name = "Toxicity";
  protected readonly opinionDeclaration: OpinionMetricDeclaration<ToxicityTemplateFunctions> = {
    template: ToxicityTemplate,
    adjective: "toxic",
    reasonPrompt: (template, toxics, score) =>
      template.generateReason({ toxics, score, multimodal: false }),
  };
}
