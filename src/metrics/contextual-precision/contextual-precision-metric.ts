import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import { judgeReason, reasonOrItem } from "../shared/verdicts.ts";
import { askYesNoVerdicts } from "../shared/yes-no-verdicts.ts";
import { ContextualPrecisionTemplate } from "./prompts.ts";

const STEPS = ["generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link ContextualPrecisionMetric}, any of which `evaluationTemplate` may replace. */
export type ContextualPrecisionTemplateFunctions = Pick<
  typeof ContextualPrecisionTemplate,
  "generateVerdicts" | "generateReason"
>;

/** Options of {@link ContextualPrecisionMetric}: the options every metric takes. */
export type ContextualPrecisionMetricOptions =
  BaseMetricOptions<ContextualPrecisionTemplateFunctions>;

/**
 * Contextual Precision: whether the retriever ranks the nodes that matter above those that do
 * not (a re-ranker's metric).
 *
 * Steps: (1) a yes/no verdict per `retrievalContext` node, in rank order and in one call: was
 * the node useful in arriving at `expectedOutput` for `input`? (2) A reason, asked of the
 * judge only when the score is below 1; otherwise verdict writes it.
 *
 * Score = weighted cumulative precision (deepeval's): Σ over useful nodes at rank k of
 * (useful nodes up to k) ÷ k, divided by the useful nodes; 0 when none is useful. So rank
 * matters: [yes, no] scores 1, [no, yes] 0.5. Higher is better: passes when
 * `score >= threshold`. Strict mode: anything below 1 scores 0, and the threshold is 1.
 *
 * Not for: how much of the expected output was retrieved (Contextual Recall), or how much
 * noise the nodes hold (Contextual Relevancy): a single useful node ranked first scores 1.
 * @example
 * const metric = new ContextualPrecisionMetric({ threshold: 0.7 });
 * await metric.measure({
 *   input: "What if these shoes don't fit?",
 *   expectedOutput: "You are eligible for a 30 day full refund at no extra cost.",
 *   retrievalContext: ["All customers are eligible for a 30 day full refund at no extra cost."],
 * });
 */
export class ContextualPrecisionMetric extends BaseMetric<ContextualPrecisionTemplateFunctions> {
  readonly name = "Contextual Precision";
  readonly requiredFields: readonly TestCaseField[] = [
    "input",
    "retrievalContext",
    "expectedOutput",
  ];
  readonly judgedFields: readonly TestCaseField[] = ["input", "expectedOutput", "retrievalContext"];

  constructor(options: ContextualPrecisionMetricOptions = {}) {
    super(options, { lowerIsBetter: false, steps: STEPS });
  }

  protected defaultTemplate(): ContextualPrecisionTemplateFunctions {
    return templateSteps(ContextualPrecisionTemplate, STEPS);
  }

  protected async scoreTestCase(
    context: MetricContext<ContextualPrecisionTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const images: ImagePart[] = [];
    const input = context.render("input", images);
    const inputImages = [...images];
    const expectedOutput = context.render("expectedOutput", images);
    const nodes = [...(context.testCase.retrievalContext ?? [])];
    const verdicts = await askYesNoVerdicts(context, {
      step: "generateVerdicts",
      prompt: template.generateVerdicts({
        input,
        expectedOutput,
        retrievalContext: nodes,
        multimodal,
      }),
      images,
      count: nodes.length,
      itemName: "node",
      clean: "yes",
    });
    const score = weightedCumulativePrecision(verdicts);
    const useful = verdicts.filter((verdict) => verdict.verdict === "yes").length;
    return {
      score,
      steps: [
        { label: "Nodes", value: nodes },
        { label: "Verdicts", value: verdicts },
      ],
      details: { nodes, verdicts },
      planReason: (finalScore): ReasonPlan => {
        // A score of 1: every useful node comes first, which needs no judge to say.
        if (score === 1) return { because: describeTopRanked(useful, nodes.length - useful) };
        return judgeReason(
          template.generateReason({
            input,
            verdicts: verdicts.map((verdict, index) => ({
              verdict: verdict.verdict,
              reason: reasonOrItem(verdict, nodes[index]),
            })),
            score: finalScore,
            multimodal,
          }),
          inputImages,
        );
      },
    };
  }
}

function describeTopRanked(useful: number, others: number): string {
  if (others === 0) {
    return useful === 1
      ? "the one node of the retrieval context is useful for the expected output"
      : `all ${useful} nodes of the retrieval context are useful for the expected output`;
  }
  const ranked =
    useful === 1
      ? "the one useful node of the retrieval context is ranked first"
      : `the ${useful} useful nodes of the retrieval context are ranked first`;
  return `${ranked}, above the ${others === 1 ? "one node" : `${others} nodes`} of no use`;
}

/**
 * deepeval's weighted cumulative precision of verdicts in rank order: the sum, over each
 * useful node at rank k, of (useful nodes up to k) ÷ k, divided by the useful nodes; 0 when
 * there are no verdicts or no useful node.
 */
export function weightedCumulativePrecision(verdicts: ReadonlyArray<{ verdict: string }>): number {
  if (verdicts.length === 0) return 0;
  let useful = 0;
  let sum = 0;
  for (const [index, { verdict }] of verdicts.entries()) {
    if (verdict !== "yes") continue;
    useful += 1;
    sum += useful / (index + 1);
  }
  return useful === 0 ? 0 : sum / useful;
}
