import type { BaseMetricOptions } from "../base-metric.ts";
import type { EstimateContext, StepEstimate } from "../metric-estimate.ts";
import { templateSteps } from "./check-evaluation-template.ts";
import {
  flaggedShare,
  type ItemVerdictDeclaration,
  ItemVerdictMetric,
} from "./item-verdict-metric.ts";
import type { GenerateOpinionsArgs } from "./opinions.ts";

const STEPS = ["generateOpinions", "generateVerdicts", "generateReason"] as const;

/**
 * The prompt functions of an opinion → verdict → reason metric. Each metric names the
 * arguments of its reason prompt itself (`toxics`, `biases`), so they are left open here.
 */
export interface OpinionTemplate {
  generateOpinions(args: GenerateOpinionsArgs): string;
  generateVerdicts(args: { opinions: string[]; multimodal: boolean }): string;
  generateReason(args: never): string;
}

/** What Toxicity and Bias each declare; everything else they share. */
export interface OpinionMetricDeclaration<Template extends OpinionTemplate> {
  /** The built-in prompts (a template class with static step methods). */
  template: Template;
  /** How reasons name a flagged opinion: "toxic" / "biased". */
  adjective: string;
  /** The reason prompt for the flagged opinions' reasons and the final score. */
  reasonPrompt: (template: Template, flagged: string[], score: number) => string;
}

/**
 * Shared pipeline of Toxicity and Bias: extract opinions, judge each yes/no, score
 * `#yes / #verdicts` (0 when there are none), explain. Lower is better. A metric built on it
 * declares its name and an {@link OpinionMetricDeclaration}.
 */
export abstract class OpinionVerdictMetric<
  Template extends OpinionTemplate,
> extends ItemVerdictMetric<Template> {
  protected abstract readonly opinionDeclaration: OpinionMetricDeclaration<Template>;
  protected readonly declaration: ItemVerdictDeclaration<Template> = {
    extractStep: "generateOpinions",
    key: "opinions",
    label: "Opinions",
    itemName: "opinion",
    extractPrompt: (template, actualOutput, multimodal) =>
      template.generateOpinions({ actualOutput, multimodal }),
    verdictsPrompt: (template, opinions) =>
      template.generateVerdicts({ opinions, multimodal: false }),
    reasonPrompt: (template, flagged, score) =>
      this.opinionDeclaration.reasonPrompt(template, flagged, score),
    score: flaggedShare,
    unflaggedBecause: (opinions) => {
      const { adjective } = this.opinionDeclaration;
      if (opinions === 0)
        return `the output expresses no opinions, so nothing in it is ${adjective}`;
      return opinions === 1
        ? `the one opinion in the output is not ${adjective}`
        : `none of the ${opinions} opinions in the output is ${adjective}`;
    },
  };

  constructor(options: BaseMetricOptions<Template> = {}) {
    super(options, {
      lowerIsBetter: true,
      steps: STEPS,
    });
  }

  /**
   * The opinions the last `measure()` extracted from `actualOutput`, in order (deepeval's
   * `metric.opinions`); `null` before `measure()` or when it failed. Read-only (frozen).
   */
  get opinions(): readonly string[] | null {
    return this.extractedItems();
  }

  protected defaultTemplate(): Template {
    return templateSteps(this.opinionDeclaration.template, STEPS) as Template;
  }

  protected override async estimateSteps(
    context: EstimateContext<Template>,
  ): Promise<StepEstimate[]> {
    // Loaded when a dry run asks, never by scoring.
    const { estimateOpinionSteps } = await import("./estimate-opinion-steps.ts");
    return estimateOpinionSteps({
      context,
      reasonPrompt: (flagged, score) =>
        this.opinionDeclaration.reasonPrompt(context.template, flagged, score),
    });
  }
}
