import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import { judgeReason } from "../shared/verdicts.ts";
import { askYesNoVerdicts, numberedReasons } from "../shared/yes-no-verdicts.ts";
import { HallucinationTemplate } from "./prompts.ts";

const STEPS = ["generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link HallucinationMetric}, any of which `evaluationTemplate` may replace. */
export type HallucinationTemplateFunctions = Pick<
  typeof HallucinationTemplate,
  "generateVerdicts" | "generateReason"
>;

/** Options of {@link HallucinationMetric}: the options every metric takes. */
export type HallucinationMetricOptions = BaseMetricOptions<HallucinationTemplateFunctions>;

/**
 * Hallucination: how much of the ground truth the output contradicts, with `context` (passages
 * known to be true, e.g. the ideal part of a knowledge base) as the judge's only source.
 *
 * Steps: (1) a yes/no verdict per context passage, in one call: does `actualOutput` agree with
 * it ("yes") or contradict it ("no")? Leaving details out is no contradiction. (2) A reason,
 * asked of the judge only when some passage is contradicted; otherwise verdict writes it.
 *
 * Score = contradicted passages ÷ passages (deepeval's; 0 when there are none). LOWER is
 * better: passes when `score <= threshold`. Strict mode: any contradiction scores 1, and the
 * threshold is 0.
 *
 * Not for: a RAG pipeline's live retrieval context (use Faithfulness, which judges the output
 * against `retrievalContext`); nor for what the output adds beyond the contexts, which this
 * metric forgives.
 * @example
 * const metric = new HallucinationMetric({ threshold: 0.5 });
 * await metric.measure({
 *   input: "What was the man doing?",
 *   actualOutput: "A blond drinking water in public.",
 *   context: ["A man with blond hair and a brown shirt drinking out of a public water fountain."],
 * });
 */
export class HallucinationMetric extends BaseMetric<HallucinationTemplateFunctions> {
  readonly name = "Hallucination";
  readonly requiredFields: readonly TestCaseField[] = ["input", "actualOutput", "context"];
  readonly judgedFields: readonly TestCaseField[] = ["actualOutput", "context"];

  constructor(options: HallucinationMetricOptions = {}) {
    super(options, { lowerIsBetter: true, steps: STEPS });
  }

  protected defaultTemplate(): HallucinationTemplateFunctions {
    return templateSteps(HallucinationTemplate, STEPS);
  }

  protected async scoreTestCase(
    context: MetricContext<HallucinationTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const images: ImagePart[] = [];
    const actualOutput = context.render("actualOutput", images);
    const contexts = [...(context.testCase.context ?? [])];
    const verdicts = await askYesNoVerdicts(context, {
      step: "generateVerdicts",
      prompt: template.generateVerdicts({ actualOutput, contexts, multimodal }),
      images,
      count: contexts.length,
      itemName: "context",
      clean: "yes",
    });
    const reasons = (verdict: "yes" | "no") =>
      numberedReasons({ verdicts, items: contexts, verdict, noun: "Context" });
    const contradictions = reasons("no");
    const score = verdicts.length === 0 ? 0 : contradictions.length / verdicts.length;
    return {
      score,
      steps: [
        { label: "Contexts", value: contexts },
        // A "no" (contradicted) counts against the output, though lower is better.
        { label: "Verdicts", value: verdicts, flaggedVerdict: "no" },
      ],
      details: { contexts, verdicts },
      planReason: (finalScore): ReasonPlan => {
        if (contradictions.length === 0) {
          return {
            because:
              contexts.length === 1
                ? "the output does not contradict the one context"
                : `the output contradicts none of the ${contexts.length} contexts`,
          };
        }
        return judgeReason(
          template.generateReason({
            factualAlignments: reasons("yes"),
            contradictions,
            score: finalScore,
          }),
          // The reasons are text about the output; its images are not asked about again.
          [],
        );
      },
    };
  }
}
