import { z } from "zod";
import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import {
  type ClaimCheck,
  type ClaimVerdict,
  checkClaims,
  runSteps,
  TRUTHS_EXTRACTION_LIMIT,
} from "../shared/truths-and-claims.ts";
import { judgeReason, reasonOrItem } from "../shared/verdicts.ts";
import { type CoverageVerdict, checkCoverage } from "./coverage.ts";
import { SummarizationTemplate } from "./prompts.ts";

const STEPS = [
  "generateTruths",
  "generateClaims",
  "generateAlignmentVerdicts",
  "generateQuestions",
  "generateAnswers",
  "generateReason",
] as const;

/** The prompt functions of {@link SummarizationMetric}, any of which `evaluationTemplate` may replace. */
export type SummarizationTemplateFunctions = Pick<
  typeof SummarizationTemplate,
  | "generateTruths"
  | "generateClaims"
  | "generateAlignmentVerdicts"
  | "generateQuestions"
  | "generateAnswers"
  | "generateReason"
>;

/** Options of {@link SummarizationMetric}. */
export interface SummarizationMetricOptions
  extends BaseMetricOptions<SummarizationTemplateFunctions> {
  /**
   * Closed yes/no questions a good summary of the original text answers: they decide the
   * coverage score. Without them (or with an empty list), `n` questions are written from the
   * original text for each test case.
   * @default null
   */
  assessmentQuestions?: readonly string[] | null;
  /** How many assessment questions to write when none are given. @default 5 */
  n?: number;
  /**
   * The most facts to take from the original text, the most important first (as the judge
   * ranks them); `null` takes them all. 0 takes none, without a judge call.
   * @default null
   */
  truthsExtractionLimit?: number | null;
}

/** The two scores a Summarization score is the lower of (deepeval's `score_breakdown`). */
export interface SummarizationScoreBreakdown {
  /** Summary claims the original text backs ("yes") ÷ claims; 0 when there are none. */
  alignment: number;
  /**
   * Questions both texts answer ÷ questions the original text answers; 0 when it answers none.
   */
  coverage: number;
}

const COVERAGE_CLASS = (verdict: CoverageVerdict) =>
  verdict.originalVerdict !== "yes"
    ? "not counted"
    : verdict.summaryVerdict === "yes"
      ? "covered"
      : "not covered";

/**
 * Summarization: whether a summary (`actualOutput`) of a text (`input`) is faithful to it and
 * keeps what matters in it.
 *
 * Steps. Alignment: (1) the facts of the original text and the claims of the summary, asked at
 * once (the same prompts as Faithfulness's); (2) a yes/no/idk verdict per claim against the
 * facts. Coverage: (1) `n` closed questions written from the original text, unless
 * `assessmentQuestions` are given; (2) each answered yes/no from the original text and from
 * the summary ("does it hold what it takes to answer?"). Alignment and coverage run at once.
 * Then (3) a reason, asked of the judge only when something counts against the summary, else
 * written by verdict.
 *
 * Score = min(alignment, coverage). Alignment = claims judged "yes" ÷ claims (0 when the
 * summary makes none; `idk`, information the original does not hold, counts against it).
 * Coverage = questions answered "yes" by both ÷ questions the original answers "yes" (0 when
 * it answers none). Higher is better: passes when `score >= threshold`. Strict mode: anything
 * below 1 scores 0. Both scores are in `scoreBreakdown`, and the verdicts in `details`.
 *
 * Not for: summaries of several sources (give one text as `input`), or style and length; with
 * generated questions the coverage score varies from run to run: give `assessmentQuestions`
 * when you know what a summary must keep.
 * @example
 * const metric = new SummarizationMetric({
 *   assessmentQuestions: ["Does the summary say when the work starts?"],
 * });
 * await metric.measure({ input: longText, actualOutput: summary });
 * console.log(metric.score, metric.scoreBreakdown);
 */
export class SummarizationMetric extends BaseMetric<SummarizationTemplateFunctions> {
  readonly name = "Summarization";
  readonly requiredFields: readonly TestCaseField[] = ["input", "actualOutput"];
  readonly judgedFields: readonly TestCaseField[] = ["input", "actualOutput"];
  /** The questions given, or `null` when `n` are written per test case. */
  readonly assessmentQuestions: readonly string[] | null;
  /** How many questions are written when none are given. */
  readonly n: number;
  /** The most facts taken from the original text; `null`: all. */
  readonly truthsExtractionLimit: number | null;

  constructor(options: SummarizationMetricOptions = {}) {
    super(options, {
      lowerIsBetter: false,
      steps: STEPS,
      options: {
        assessmentQuestions: {
          // deepeval treats an empty list as none given.
          schema: z
            .array(z.string().trim().min(1))
            .nullable()
            .default(null)
            .transform((questions) => (questions?.length ? questions : null)),
          expects: "a list of non-empty questions, or null to write `n` of them",
        },
        n: { schema: z.number().int().min(1).default(5), expects: "a whole number of at least 1" },
        truthsExtractionLimit: TRUTHS_EXTRACTION_LIMIT,
      },
    });
    this.assessmentQuestions = this.ownOptions.assessmentQuestions as string[] | null;
    this.n = this.ownOptions.n as number;
    this.truthsExtractionLimit = this.ownOptions.truthsExtractionLimit as number | null;
  }

  /** The facts the last `measure()` took from the original text; `null` before or on failure. */
  get truths(): readonly string[] | null {
    return (this.lastDetails.truths as readonly string[] | undefined) ?? null;
  }

  /** The claims the last `measure()` extracted from the summary; `null` before or on failure. */
  get claims(): readonly string[] | null {
    return (this.lastDetails.claims as readonly string[] | undefined) ?? null;
  }

  /** The coverage verdicts of the last `measure()`, each with its question; `null` before or on failure. */
  get coverageVerdicts(): ReadonlyArray<Readonly<CoverageVerdict>> | null {
    return (this.lastDetails.coverageVerdicts as CoverageVerdict[] | undefined) ?? null;
  }

  /**
   * The alignment and coverage scores of the last `measure()` (deepeval's `score_breakdown`;
   * in strict mode each is 0 or 1, as there); `null` before `measure()` or when it failed.
   */
  get scoreBreakdown(): Readonly<SummarizationScoreBreakdown> | null {
    return (this.lastDetails.scoreBreakdown as SummarizationScoreBreakdown | undefined) ?? null;
  }

  protected defaultTemplate(): SummarizationTemplateFunctions {
    return templateSteps(SummarizationTemplate, STEPS);
  }

  protected async scoreTestCase(
    context: MetricContext<SummarizationTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template, ask } = context;
    const asyncMode = this.asyncMode;
    const originalImages: ImagePart[] = [];
    const original = { text: context.render("input", originalImages), images: originalImages };
    const summaryImages: ImagePart[] = [];
    const summary = { text: context.render("actualOutput", summaryImages), images: summaryImages };
    const extractionLimit = this.truthsExtractionLimit;

    const [alignment, coverageVerdicts] = await runSteps<[ClaimCheck, CoverageVerdict[]]>(
      asyncMode,
      [
        () =>
          checkClaims({
            ask,
            asyncMode,
            truths:
              extractionLimit === 0
                ? null
                : {
                    step: "generateTruths",
                    prompt: () =>
                      template.generateTruths({
                        documents: [original.text],
                        extractionLimit,
                        multimodal: original.images.length > 0,
                      }),
                    images: original.images,
                  },
            claims: {
              step: "generateClaims",
              prompt: () =>
                template.generateClaims({
                  actualOutput: summary.text,
                  multimodal: summary.images.length > 0,
                }),
              images: summary.images,
            },
            verdicts: {
              step: "generateAlignmentVerdicts",
              prompt: (claims, truths) =>
                template.generateAlignmentVerdicts({ claims, truths, multimodal: false }),
            },
          }),
        () =>
          checkCoverage({
            ask,
            template,
            asyncMode,
            original,
            summary,
            questions: this.assessmentQuestions,
            n: this.n,
          }),
      ],
    );
    const { truths, claims, verdicts } = alignment;

    const breakdown = this.scoreBreakdownOf(verdicts, coverageVerdicts);
    const contradictions = flagged(verdicts, claims, "no");
    const redundancies = flagged(verdicts, claims, "idk");
    const unanswered = coverageVerdicts.flatMap((verdict) =>
      COVERAGE_CLASS(verdict) === "not covered" ? [verdict.question] : [],
    );
    const counted = coverageVerdicts.filter((verdict) => verdict.originalVerdict === "yes").length;

    return {
      score: Math.min(breakdown.alignment, breakdown.coverage),
      steps: [
        { label: "Truths", value: truths },
        { label: "Claims", value: claims },
        { label: "Alignment verdicts", value: verdicts },
        {
          label: "Assessment questions",
          value: coverageVerdicts.map((verdict) => verdict.question),
        },
        {
          label: "Coverage verdicts",
          value: coverageVerdicts.map((verdict) => ({
            original: verdict.originalVerdict,
            summary: verdict.summaryVerdict,
            verdict: COVERAGE_CLASS(verdict),
          })),
        },
        { label: "Score breakdown", value: breakdown },
      ],
      details: {
        truths,
        claims,
        verdicts,
        assessmentQuestions: coverageVerdicts.map((verdict) => verdict.question),
        coverageVerdicts,
        scoreBreakdown: breakdown,
      },
      planReason: (finalScore): ReasonPlan => {
        if (contradictions.length > 0 || redundancies.length > 0 || unanswered.length > 0) {
          return judgeReason(
            template.generateReason({
              contradictions,
              redundancies,
              questions: unanswered,
              score: finalScore,
              scoreBreakdown: breakdown,
              multimodal: false,
            }),
            [],
          );
        }
        // Nothing flagged: each score is 1, or 0 because there was nothing to count.
        const alignmentPart =
          claims.length === 0
            ? "the summary makes no claim that could be checked against the original text (alignment 0)"
            : claims.length === 1
              ? "the original text backs the one claim of the summary"
              : `the original text backs all ${claims.length} claims of the summary`;
        const questions = coverageVerdicts.length;
        const coveragePart =
          counted === 0
            ? `the original text answers none of the ${questions} assessment question${questions === 1 ? "" : "s"} (coverage 0)`
            : counted === 1
              ? "the summary answers the one assessment question the original text answers"
              : `the summary answers all ${counted} assessment questions the original text answers`;
        return { because: `${alignmentPart}, and ${coveragePart}` };
      },
    };
  }

  /** deepeval's `_calculate_score` for both scores, each made 0 or 1 in strict mode as there. */
  private scoreBreakdownOf(
    verdicts: readonly ClaimVerdict[],
    coverage: readonly CoverageVerdict[],
  ): SummarizationScoreBreakdown {
    const strict = (score: number) => (this.strictMode && score < 1 ? 0 : score);
    const aligned = verdicts.filter((verdict) => verdict.verdict === "yes").length;
    const counted = coverage.filter((verdict) => verdict.originalVerdict === "yes");
    const covered = counted.filter((verdict) => verdict.summaryVerdict === "yes").length;
    return {
      alignment: strict(verdicts.length === 0 ? 0 : aligned / verdicts.length),
      coverage: strict(counted.length === 0 ? 0 : covered / counted.length),
    };
  }
}

function flagged(verdicts: readonly ClaimVerdict[], claims: readonly string[], kind: string) {
  return verdicts.flatMap((verdict, index) =>
    verdict.verdict === kind ? [reasonOrItem(verdict, claims[index], true)] : [],
  );
}
