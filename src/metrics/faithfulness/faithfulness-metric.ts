import { z } from "zod";
import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import { checkClaims, TRUTHS_EXTRACTION_LIMIT } from "../shared/truths-and-claims.ts";
import { judgeReason, reasonOrItem } from "../shared/verdicts.ts";
import { FaithfulnessTemplate } from "./prompts.ts";

const STEPS = ["generateTruths", "generateClaims", "generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link FaithfulnessMetric}, any of which `evaluationTemplate` may replace. */
export type FaithfulnessTemplateFunctions = Pick<
  typeof FaithfulnessTemplate,
  "generateTruths" | "generateClaims" | "generateVerdicts" | "generateReason"
>;

/** Options of {@link FaithfulnessMetric}. */
export interface FaithfulnessMetricOptions
  extends BaseMetricOptions<FaithfulnessTemplateFunctions> {
  /**
   * The most facts to take from each document of `retrievalContext`, the most important first
   * (as the judge ranks them); `null` takes them all. 0 takes none, without a judge call.
   * @default null
   */
  truthsExtractionLimit?: number | null;
  /** Count `idk` claims (neither backed nor contradicted by the context) as unfaithful. @default false */
  penalizeAmbiguousClaims?: boolean;
}

/**
 * Faithfulness: whether the output (`actualOutput`) says only what its sources
 * (`retrievalContext`) allow: the generator of a RAG pipeline, judged against what it retrieved.
 *
 * Steps: (1) the facts of `retrievalContext` and the claims of `actualOutput`, asked at once
 * (both prompts are Summarization's too, so running both on a case asks once); (2) a
 * yes/no/idk verdict per claim against the facts: "no" when they contradict it, "idk" when
 * they neither back nor contradict it; (3) a reason, asked of the judge only when some claim
 * counts against the output, else written by verdict.
 *
 * Score = claims not judged "no" ÷ claims (1 when there are none); with
 * `penalizeAmbiguousClaims`, `idk` claims count against it too. Higher is better: passes when
 * `score >= threshold`. Strict mode: anything below 1 scores 0.
 *
 * Not for: retrieval quality (whether the context was the right one), or correctness against
 * the world: a claim the context does not mention is not unfaithful unless
 * `penalizeAmbiguousClaims`; an output that claims nothing scores 1.
 * @example
 * const metric = new FaithfulnessMetric({ threshold: 0.7 });
 * await metric.measure({
 *   input: "What if these shoes don't fit?",
 *   actualOutput: "We offer a 30-day full refund at no extra cost.",
 *   retrievalContext: ["All customers are eligible for a 30 day full refund at no extra cost."],
 * });
 */
export class FaithfulnessMetric extends BaseMetric<FaithfulnessTemplateFunctions> {
  readonly name = "Faithfulness";
  readonly requiredFields: readonly TestCaseField[] = ["input", "actualOutput", "retrievalContext"];
  readonly judgedFields: readonly TestCaseField[] = ["actualOutput", "retrievalContext"];
  /** The most facts taken from each document of `retrievalContext`; `null`: all. */
  readonly truthsExtractionLimit: number | null;
  /** Whether `idk` claims count as unfaithful. */
  readonly penalizeAmbiguousClaims: boolean;

  constructor(options: FaithfulnessMetricOptions = {}) {
    super(options, {
      lowerIsBetter: false,
      steps: STEPS,
      options: {
        truthsExtractionLimit: TRUTHS_EXTRACTION_LIMIT,
        penalizeAmbiguousClaims: { schema: z.boolean().default(false), expects: "true or false" },
      },
    });
    this.truthsExtractionLimit = this.ownOptions.truthsExtractionLimit as number | null;
    this.penalizeAmbiguousClaims = this.ownOptions.penalizeAmbiguousClaims as boolean;
  }

  /**
   * The facts the last `measure()` took from `retrievalContext` (deepeval's `metric.truths`);
   * `null` before `measure()` or when it failed. Read-only (frozen).
   */
  get truths(): readonly string[] | null {
    return (this.lastDetails.truths as readonly string[] | undefined) ?? null;
  }

  /**
   * The claims the last `measure()` extracted from `actualOutput`, in order (deepeval's
   * `metric.claims`); `null` before `measure()` or when it failed. Read-only (frozen).
   */
  get claims(): readonly string[] | null {
    return (this.lastDetails.claims as readonly string[] | undefined) ?? null;
  }

  protected defaultTemplate(): FaithfulnessTemplateFunctions {
    return templateSteps(FaithfulnessTemplate, STEPS);
  }

  protected async scoreTestCase(
    context: MetricContext<FaithfulnessTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template } = context;
    const outputImages: ImagePart[] = [];
    const actualOutput = context.render("actualOutput", outputImages);
    const documents = context.testCase.retrievalContext ?? [];
    const extractionLimit = this.truthsExtractionLimit;
    const { truths, claims, verdicts } = await checkClaims({
      ask: context.ask,
      asyncMode: this.asyncMode,
      truths:
        extractionLimit === 0
          ? null
          : {
              step: "generateTruths",
              prompt: () =>
                template.generateTruths({ documents, extractionLimit, multimodal: false }),
              images: [],
            },
      claims: {
        step: "generateClaims",
        prompt: () =>
          template.generateClaims({ actualOutput, multimodal: outputImages.length > 0 }),
        images: outputImages,
      },
      verdicts: {
        step: "generateVerdicts",
        prompt: (claimList, truthList) =>
          template.generateVerdicts({ claims: claimList, truths: truthList, multimodal: false }),
      },
    });

    // deepeval's count: every claim not judged "no" is faithful, less the `idk` ones when
    // ambiguous claims are penalised.
    const contradictions = verdicts.flatMap((verdict, index) => {
      if (verdict.verdict === "no") return [reasonOrItem(verdict, claims[index], true)];
      if (verdict.verdict === "idk" && this.penalizeAmbiguousClaims) {
        return [`(Ambiguous) ${reasonOrItem(verdict, claims[index], true)}`];
      }
      return [];
    });
    const ambiguous = verdicts.filter((verdict) => verdict.verdict === "idk").length;
    const score =
      verdicts.length === 0 ? 1 : (verdicts.length - contradictions.length) / verdicts.length;

    return {
      score,
      steps: [
        { label: "Truths", value: truths },
        { label: "Claims", value: claims },
        { label: "Verdicts", value: verdicts },
      ],
      details: { truths, claims, verdicts },
      planReason: (finalScore): ReasonPlan => {
        if (contradictions.length > 0) {
          return judgeReason(
            template.generateReason({ contradictions, score: finalScore, multimodal: false }),
            [],
          );
        }
        if (claims.length === 0) {
          return {
            because:
              "the output makes no claims, so none of them contradicts the retrieval context",
          };
        }
        const all =
          claims.length === 1
            ? "the one claim in the output does not contradict the retrieval context"
            : `none of the ${claims.length} claims in the output contradicts the retrieval context`;
        return {
          because:
            ambiguous === 0
              ? all
              : `${all} (${ambiguous} not backed by it either way, counted as faithful)`,
        };
      },
    };
  }
}
