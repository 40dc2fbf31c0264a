import { z } from "zod";
import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import type { EstimateContext, StepEstimate } from "../metric-estimate.ts";
import { itemText } from "../shared/answer-text.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import {
  judgeReason,
  normalizeVerdictAnswer,
  reasonOrItem,
  verdictsSchema,
} from "../shared/verdicts.ts";
import { AnswerRelevancyTemplate } from "./prompts.ts";

const STEPS = ["generateStatements", "generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link AnswerRelevancyMetric}, any of which `evaluationTemplate` may replace. */
export type AnswerRelevancyTemplateFunctions = Pick<
  typeof AnswerRelevancyTemplate,
  "generateStatements" | "generateVerdicts" | "generateReason"
>;

/** Options of {@link AnswerRelevancyMetric}. */
export interface AnswerRelevancyMetricOptions
  extends BaseMetricOptions<AnswerRelevancyTemplateFunctions> {
  /** Count `idk` (ambiguous) verdicts as irrelevant instead of relevant. @default false */
  penalizeAmbiguous?: boolean;
}

/** Schema of the statement step: `{ "statements": string[] }`. */
export const statementsSchema = z.object({ statements: z.array(itemText) });

const YES_NO_IDK = ["yes", "no", "idk"] as const;

/**
 * Answer Relevancy: how much of the output is relevant to the input.
 *
 * Steps: (1) break `actualOutput` into statements; (2) a yes/no/idk relevance verdict per
 * statement against `input`; (3) a reason, asked of the judge only when some statement
 * counts as irrelevant.
 *
 * Score = statements not judged "no" ÷ statements (1 when there are none). `idk` counts as
 * relevant unless `penalizeAmbiguous`. Higher is better: passes when `score >= threshold`.
 * Strict mode: anything below 1 scores 0.
 *
 * Not for: correctness (a confident wrong answer can be fully relevant), or answers that are
 * "I don't know" (they may score high; set `penalizeAmbiguous` to count ambiguity against).
 * @example
 * const metric = new AnswerRelevancyMetric({ threshold: 0.7 });
 * await metric.measure({ input: "What if these shoes don't fit?", actualOutput: "We offer a 30-day full refund at no extra cost." });
 */
export class AnswerRelevancyMetric extends BaseMetric<AnswerRelevancyTemplateFunctions> {
  readonly name = "Answer Relevancy";
  readonly requiredFields: readonly TestCaseField[] = ["input", "actualOutput"];
  readonly judgedFields: readonly TestCaseField[] = ["input", "actualOutput"];
  /** Count `idk` (ambiguous) verdicts as irrelevant instead of relevant. */
  readonly penalizeAmbiguous: boolean;

  constructor(options: AnswerRelevancyMetricOptions = {}) {
    super(options, {
      lowerIsBetter: false,
      steps: STEPS,
      options: {
        penalizeAmbiguous: { schema: z.boolean().default(false), expects: "true or false" },
      },
    });
    this.penalizeAmbiguous = this.ownOptions.penalizeAmbiguous as boolean;
  }

  /**
   * The statements the last `measure()` extracted from `actualOutput`, in order (deepeval's
   * `metric.statements`); `null` before `measure()` or when it failed. Read-only (frozen).
   */
  get statements(): readonly string[] | null {
    return this.lastDetails.statements ?? null;
  }

  protected defaultTemplate(): AnswerRelevancyTemplateFunctions {
    return templateSteps(AnswerRelevancyTemplate, STEPS);
  }

  protected override async estimateSteps(
    context: EstimateContext<AnswerRelevancyTemplateFunctions>,
  ): Promise<StepEstimate[]> {
    // Loaded when a dry run asks, never by scoring.
    const { estimateRelevancySteps } = await import("./estimate-relevancy-steps.ts");
    return estimateRelevancySteps({ context, penalizeAmbiguous: this.penalizeAmbiguous });
  }

  protected async scoreTestCase(
    context: MetricContext<AnswerRelevancyTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const outputImages: ImagePart[] = [];
    const actualOutput = context.render("actualOutput", outputImages);
    const { statements } = await context.ask({
      step: "generateStatements",
      prompt: template.generateStatements({ actualOutput, multimodal }),
      images: outputImages,
      schema: statementsSchema,
    });

    // The input's images are what the question is about: they go with every input prompt.
    const inputImages: ImagePart[] = [];
    const input = context.render("input", inputImages);
    let verdicts: Array<{ verdict: "yes" | "no" | "idk"; reason?: string | null | undefined }> = [];
    if (statements.length > 0) {
      ({ verdicts } = await context.ask({
        step: "generateVerdicts",
        prompt: template.generateVerdicts({ input, statements, multimodal }),
        images: inputImages,
        schema: verdictsSchema({
          allowed: YES_NO_IDK,
          count: statements.length,
          itemName: "statement",
        }),
        prepare: (value) => normalizeVerdictAnswer(value, YES_NO_IDK),
      }));
    }

    const countsAsIrrelevant = (verdict: string) =>
      verdict === "no" || (this.penalizeAmbiguous && verdict === "idk");
    const irrelevant = verdicts.flatMap((verdict, index) =>
      countsAsIrrelevant(verdict.verdict) ? [reasonOrItem(verdict, statements[index], true)] : [],
    );
    const ambiguous = verdicts.filter((verdict) => verdict.verdict === "idk").length;
    const score =
      verdicts.length === 0 ? 1 : (verdicts.length - irrelevant.length) / verdicts.length;

    return {
      score,
      steps: [
        { label: "Statements", value: statements },
        { label: "Verdicts", value: verdicts },
      ],
      details: { statements, verdicts },
      planReason: (finalScore): ReasonPlan => {
        if (irrelevant.length === 0) {
          let because: string;
          if (statements.length === 0) {
            because = "the output makes no statements, so none of it is irrelevant";
          } else if (ambiguous > 0) {
            because = `none of the ${statements.length} statements in the output is irrelevant to the input (${ambiguous} ambiguous, counted as relevant)`;
          } else {
            because =
              statements.length === 1
                ? "the one statement in the output is relevant to the input"
                : `all ${statements.length} statements in the output are relevant to the input`;
          }
          return { because };
        }
        return judgeReason(
          template.generateReason({
            irrelevantStatements: irrelevant,
            input,
            score: finalScore,
            multimodal,
          }),
          inputImages,
        );
      },
    };
  }
}
