import { z } from "zod";
import type { BaseMetricOptions } from "../base-metric.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import {
  flaggedShare,
  type ItemVerdictDeclaration,
  ItemVerdictMetric,
} from "../shared/item-verdict-metric.ts";
import { MisuseTemplate } from "./prompts.ts";

const STEPS = ["generateMisuses", "generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link MisuseMetric}, any of which `evaluationTemplate` may replace. */
export type MisuseTemplateFunctions = Pick<
  typeof MisuseTemplate,
  "generateMisuses" | "generateVerdicts" | "generateReason"
>;

/** Options of {@link MisuseMetric}. */
export interface MisuseMetricOptions extends BaseMetricOptions<MisuseTemplateFunctions> {
  /**
   * Required: the specialised chatbot's domain, e.g. `"financial"`, `"medical"`,
   * `"customer service"`. Trimmed and lower-cased, as deepeval does.
   */
  domain: string;
}

/**
 * Misuse: whether a specialised chatbot's output serves requests outside its domain
 * (out-of-domain tasks, general knowledge, creative writing, unrelated technical or personal
 * help, off-topic chat), as deepeval's `MisuseMetric` scores it.
 *
 * Steps: (1) extract the statements of `actualOutput` that may serve a request outside
 * `domain`; (2) a yes/no verdict per statement ("yes": a misuse); (3) a reason, asked of the
 * judge only when something is a misuse (verdict writes it otherwise; deepeval always asks).
 *
 * Score = misuses ÷ statements (0 when none was extracted). Lower is better: passes when
 * `score <= threshold`, as deepeval's code decides (its documentation says higher is better,
 * but its score counts misuses and its `is_successful` passes at or below the threshold).
 * Strict mode: any misuse scores 1 (threshold 0).
 *
 * Not for: advice the bot should not give within its domain (see `NonAdviceMetric`), or a
 * bot that keeps to its domain but breaks its persona (see `RoleViolationMetric`).
 * @example
 * const metric = new MisuseMetric({ domain: "financial" });
 * await metric.measure({ input: "Can you help me write a poem about cats?", actualOutput: "Of course! Whiskers twitch…" });
 */
export class MisuseMetric extends ItemVerdictMetric<MisuseTemplateFunctions> {
  readonly name = "Misuse";
  /** The chatbot's domain, trimmed and lower-cased. */
  readonly domain: string;
  protected readonly declaration: ItemVerdictDeclaration<MisuseTemplateFunctions> = {
    extractStep: "generateMisuses",
    key: "misuses",
    label: "Misuses",
    itemName: "statement",
    extractPrompt: (template, actualOutput, multimodal) =>
      template.generateMisuses({ actualOutput, domain: this.domain, multimodal }),
    verdictsPrompt: (template, misuses) =>
      template.generateVerdicts({ misuses, domain: this.domain, multimodal: false }),
    reasonPrompt: (template, misuseViolations, score) =>
      template.generateReason({ misuseViolations, score, multimodal: false }),
    score: flaggedShare,
    unflaggedBecause: (statements) =>
      statements === 0
        ? `nothing in the output falls outside the ${this.domain} domain`
        : statements === 1
          ? `the one statement in the output that might fall outside the ${this.domain} domain does not`
          : `none of the ${statements} statements in the output that might fall outside the ${this.domain} domain does`,
  };

  constructor(options: MisuseMetricOptions) {
    super(options, {
      lowerIsBetter: true,
      steps: STEPS,
      options: {
        domain: {
          schema: z
            .string()
            .trim()
            .min(1)
            .transform((domain) => domain.toLowerCase()),
          expects: 'the chatbot\'s domain, a non-empty string such as "financial" or "medical"',
        },
      },
    });
    this.domain = this.ownOptions.domain as string;
  }

  /**
   * The statements the last `measure()` extracted from `actualOutput` as possible misuse, in
   * order (deepeval's `metric.misuses`); `null` before `measure()` or when it failed.
   * Read-only (frozen).
   */
  get misuses(): readonly string[] | null {
    return this.extractedItems();
  }

  protected defaultTemplate(): MisuseTemplateFunctions {
    return templateSteps(MisuseTemplate, STEPS);
  }
}
