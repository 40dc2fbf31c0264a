import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import { splitSentences } from "../shared/answer-text.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import { judgeReason } from "../shared/verdicts.ts";
import { askYesNoVerdicts, numberedReasons, type YesNoVerdict } from "../shared/yes-no-verdicts.ts";
import { ContextualRecallTemplate } from "./prompts.ts";

const STEPS = ["generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link ContextualRecallMetric}, any of which `evaluationTemplate` may replace. */
export type ContextualRecallTemplateFunctions = Pick<
  typeof ContextualRecallTemplate,
  "generateVerdicts" | "generateReason"
>;

/** Options of {@link ContextualRecallMetric}: the options every metric takes. */
export type ContextualRecallMetricOptions = BaseMetricOptions<ContextualRecallTemplateFunctions>;

/**
 * Contextual Recall: how much of what the ideal answer needs the retriever fetched.
 *
 * Steps: `expectedOutput` is split into sentences (Unicode sentence boundaries, no judge
 * call); (1) a yes/no verdict per sentence, in one call: can it be attributed to the
 * `retrievalContext`? (2) A reason, asked of the judge only when some sentence cannot be;
 * otherwise verdict writes it.
 *
 * Score = attributable sentences ÷ sentences (deepeval's; 0 when the expected output has no
 * sentence). Higher is better: passes when `score >= threshold`. Strict mode: anything
 * below 1 scores 0, and the threshold is 1.
 *
 * Not for: the generator (it reads `expectedOutput`, never `actualOutput`), nor the order or
 * the noise of the nodes (Contextual Precision, Contextual Relevancy).
 * @example
 * const metric = new ContextualRecallMetric({ threshold: 0.7 });
 * await metric.measure({
 *   input: "What if these shoes don't fit?",
 *   expectedOutput: "You are eligible for a 30 day full refund at no extra cost.",
 *   retrievalContext: ["All customers are eligible for a 30 day full refund at no extra cost."],
 * });
 */
export class ContextualRecallMetric extends BaseMetric<ContextualRecallTemplateFunctions> {
  readonly name = "Contextual Recall";
  readonly requiredFields: readonly TestCaseField[] = [
    "input",
    "retrievalContext",
    "expectedOutput",
  ];
  readonly judgedFields: readonly TestCaseField[] = ["expectedOutput", "retrievalContext"];

  constructor(options: ContextualRecallMetricOptions = {}) {
    super(options, { lowerIsBetter: false, steps: STEPS });
  }

  protected defaultTemplate(): ContextualRecallTemplateFunctions {
    return templateSteps(ContextualRecallTemplate, STEPS);
  }

  protected async scoreTestCase(
    context: MetricContext<ContextualRecallTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const images: ImagePart[] = [];
    const expectedOutput = context.render("expectedOutput", images);
    const sentences = splitSentences(expectedOutput);
    const nodes = [...(context.testCase.retrievalContext ?? [])];
    let verdicts: YesNoVerdict[] = [];
    if (sentences.length > 0) {
      verdicts = await askYesNoVerdicts(context, {
        step: "generateVerdicts",
        prompt: template.generateVerdicts({ sentences, retrievalContext: nodes, multimodal }),
        images,
        count: sentences.length,
        itemName: "sentence",
        clean: "yes",
      });
    }
    const reasons = (verdict: "yes" | "no") =>
      numberedReasons({ verdicts, items: sentences, verdict, noun: "Sentence" });
    const missed = reasons("no");
    const score = verdicts.length === 0 ? 0 : (verdicts.length - missed.length) / verdicts.length;
    return {
      score,
      steps: [
        { label: "Sentences", value: sentences },
        { label: "Verdicts", value: verdicts },
      ],
      details: { sentences, verdicts },
      planReason: (finalScore): ReasonPlan => {
        if (missed.length === 0) {
          let because: string;
          if (sentences.length === 0) {
            because = "the expected output has no sentence to attribute to the retrieval context";
          } else if (sentences.length === 1) {
            because =
              "the one sentence of the expected output can be attributed to the retrieval context";
          } else {
            because = `all ${sentences.length} sentences of the expected output can be attributed to the retrieval context`;
          }
          return { because };
        }
        return judgeReason(
          template.generateReason({
            expectedOutput,
            supportiveReasons: reasons("yes"),
            unsupportiveReasons: missed,
            score: finalScore,
            multimodal,
          }),
          images,
        );
      },
    };
  }
}
