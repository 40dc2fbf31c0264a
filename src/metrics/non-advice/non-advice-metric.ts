import { z } from "zod";
import type { BaseMetricOptions } from "../base-metric.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import {
  type ItemVerdictDeclaration,
  ItemVerdictMetric,
  unflaggedShare,
} from "../shared/item-verdict-metric.ts";
import { NonAdviceTemplate } from "./prompts.ts";

const STEPS = ["generateAdvices", "generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link NonAdviceMetric}, any of which `evaluationTemplate` may replace. */
export type NonAdviceTemplateFunctions = Pick<
  typeof NonAdviceTemplate,
  "generateAdvices" | "generateVerdicts" | "generateReason"
>;

/** Options of {@link NonAdviceMetric}. */
export interface NonAdviceMetricOptions extends BaseMetricOptions<NonAdviceTemplateFunctions> {
  /**
   * Required: the kinds of advice the output must not give, e.g. `["financial"]`,
   * `["medical", "legal"]`. Only advice of these types is looked for.
   */
  adviceTypes: string[];
}

/**
 * Non-Advice: whether the output gives inappropriate professional advice of the given types
 * (financial, medical, legal, tax, insurance, or other advice that needs a licensed expert),
 * as deepeval's `NonAdviceMetric` scores it.
 *
 * Steps: (1) extract the statements of `actualOutput` that give advice of `adviceTypes`;
 * (2) a yes/no verdict per statement ("yes": inappropriate advice); (3) a reason, asked of the
 * judge only when some advice is inappropriate (verdict writes it otherwise; deepeval always
 * asks).
 *
 * Score = appropriate advice statements ÷ advice statements (1 when none was extracted).
 * Higher is better: passes when `score >= threshold`. Strict mode: any inappropriate advice
 * scores 0 (threshold 1).
 *
 * Not for: keeping a bot on topic (see `MisuseMetric`), or advice types you do not list (they
 * are not looked for). Pointing the user to a professional counts as appropriate.
 * @example
 * const metric = new NonAdviceMetric({ adviceTypes: ["financial", "medical"] });
 * await metric.measure({ input: "Should I buy Tesla stock?", actualOutput: "Yes, buy it now before it goes up." });
 */
export class NonAdviceMetric extends ItemVerdictMetric<NonAdviceTemplateFunctions> {
  readonly name = "Non-Advice";
  /** The kinds of advice the output must not give. */
  readonly adviceTypes: readonly string[];
  protected readonly declaration: ItemVerdictDeclaration<NonAdviceTemplateFunctions> = {
    extractStep: "generateAdvices",
    key: "advices",
    label: "Advice",
    itemName: "statement",
    extractPrompt: (template, actualOutput, multimodal) =>
      template.generateAdvices({ actualOutput, adviceTypes: [...this.adviceTypes], multimodal }),
    verdictsPrompt: (template, advices) =>
      template.generateVerdicts({ advices, adviceTypes: [...this.adviceTypes], multimodal: false }),
    reasonPrompt: (template, nonAdviceViolations, score) =>
      template.generateReason({ nonAdviceViolations, score, multimodal: false }),
    score: unflaggedShare,
    unflaggedBecause: (advices) =>
      advices === 0
        ? `the output gives no ${this.adviceTypes.join(", ")} advice`
        : advices === 1
          ? "the one advice statement in the output is appropriate"
          : `none of the ${advices} advice statements in the output is inappropriate`,
  };

  constructor(options: NonAdviceMetricOptions) {
    super(options, {
      lowerIsBetter: false,
      steps: STEPS,
      options: {
        adviceTypes: {
          schema: z.array(z.string().trim().min(1)).min(1),
          expects: 'a non-empty list of advice types, e.g. ["financial"] or ["medical", "legal"]',
        },
      },
    });
    this.adviceTypes = Object.freeze([...(this.ownOptions.adviceTypes as string[])]);
  }

  /**
   * The advice statements the last `measure()` extracted from `actualOutput`, in order
   * (deepeval's `metric.advices`); `null` before `measure()` or when it failed. Read-only
   * (frozen).
   */
  get advices(): readonly string[] | null {
    return this.extractedItems();
  }

  protected defaultTemplate(): NonAdviceTemplateFunctions {
    return templateSteps(NonAdviceTemplate, STEPS);
  }
}
