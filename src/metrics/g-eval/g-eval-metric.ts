import { z } from "zod";
import { ConfigError } from "../../errors/config-error.ts";
import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ScoredSteps } from "../metric-context.ts";
import type { EstimateContext, StepEstimate } from "../metric-estimate.ts";
import { quoteList, quoteText } from "../shared/prompt-text.ts";
import { GEvalTemplate } from "./prompts.ts";
import { formatRubric, type Rubric, rubricSchema, scoreRangeOf, sortRubric } from "./rubric.ts";
import { scoreLiteral, weightedScore } from "./weighted-score.ts";

/** The prompt functions of {@link GEval}, any of which `evaluationTemplate` may replace. */
export type GEvalTemplateFunctions = Pick<
  typeof GEvalTemplate,
  "generateEvaluationSteps" | "generateEvaluationResults" | "generateStrictEvaluationResults"
>;

/** Test-case fields G-Eval can judge, with the words its prompts use for them. */
export const G_EVAL_FIELDS = {
  input: "Input",
  actualOutput: "Actual Output",
  expectedOutput: "Expected Output",
  context: "Context",
  retrievalContext: "Retrieval Context",
  metadata: "Metadata",
  tags: "Tags",
  expectedTools: "Expected Tools",
  toolsCalled: "Tools Called",
} as const satisfies Partial<Record<TestCaseField, string>>;

/** A test-case field G-Eval can judge. */
export type GEvalField = keyof typeof G_EVAL_FIELDS;

/** Options of {@link GEval}. */
export interface GEvalOptions extends BaseMetricOptions<GEvalTemplateFunctions> {
  /** What the metric is called in results and reports, e.g. `"Refund policy"` (shown as `"Refund policy [GEval]"`). */
  name: string;
  /**
   * What to judge, in plain words: the judge turns it into 3–4 evaluation steps once per run,
   * shared by every test case. Give this or `evaluationSteps`.
   */
  criteria?: string;
  /** The evaluation steps themselves, in order: no step is generated. Give this or `criteria`. */
  evaluationSteps?: readonly string[];
  /**
   * The test-case fields the judge sees (each must be present on every test case).
   * @default ["input", "actualOutput"]
   */
  evaluationParams?: readonly GEvalField[];
  /**
   * Score ranges within 0–10 that do not overlap, each with the outcome it means; the judge
   * scores within them and the score is scaled from their span. Without one, 0–10.
   */
  rubric?: readonly Rubric[];
  /**
   * Candidates per token asked of judges that report log-probabilities (OpenAI's chat and
   * Responses APIs): the score is then their probability-weighted sum. 1–20.
   * @default 20
   */
  topLogprobs?: number;
}

const FIELD_NAMES = Object.keys(G_EVAL_FIELDS) as [GEvalField, ...GEvalField[]];

const OWN_OPTIONS = {
  name: { schema: z.string().trim().min(1), expects: "a non-empty string" },
  criteria: { schema: z.string().trim().min(1).optional(), expects: "a non-empty string" },
  evaluationSteps: {
    schema: z.array(z.string().trim().min(1)).min(1).optional(),
    expects: "a non-empty list of non-empty strings",
  },
  evaluationParams: {
    schema: z.array(z.enum(FIELD_NAMES)).min(1).default(["input", "actualOutput"]),
    expects: `a non-empty list of test-case fields (${FIELD_NAMES.join(", ")})`,
  },
  rubric: {
    schema: z.array(rubricSchema).optional(),
    expects:
      "a list of { scoreRange: [start, end], expectedOutcome } with whole scores from 0 to 10",
  },
  topLogprobs: {
    schema: z.number().int().min(1).max(20).default(20),
    expects: "a whole number from 1 to 20",
  },
};

/** `["input", "actualOutput", "context"]` → `"Input, Actual Output, and Context"`, as deepeval writes it. */
function parametersText(fields: readonly GEvalField[]): string {
  const words = fields.map((field) => G_EVAL_FIELDS[field]);
  if (words.length <= 2) return words.join(" and ");
  return `${words.slice(0, -1).join(", ")}, and ${words.at(-1)}`;
}

/** The judged fields of a test case as quoted data, each under its label. */
function testCaseContent(
  context: Pick<MetricContext<GEvalTemplateFunctions>, "testCase" | "render">,
  fields: readonly GEvalField[],
  images: ImagePart[],
): string {
  return fields
    .map((field) => {
      const tag = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
      const value = context.testCase[field];
      let quoted: string;
      if (field === "input" || field === "actualOutput" || field === "expectedOutput") {
        quoted = quoteText(tag, context.render(field, images));
      } else if (field === "context" || field === "retrievalContext" || field === "tags") {
        quoted = quoteList(tag, (value as string[] | undefined) ?? []);
      } else {
        quoted = quoteText(tag, JSON.stringify(value ?? null, null, 2));
      }
      return `${G_EVAL_FIELDS[field]}:\n${quoted}`;
    })
    .join("\n\n");
}

const stepsSchema = z.object({ steps: z.array(z.string().trim().min(1)).min(1) });

/**
 * G-Eval: a metric of your own criteria, judged as deepeval's `GEval` judges it.
 *
 * Steps: (1) only without `evaluationSteps`: the judge turns `criteria` into 3–4 evaluation
 * steps, once per metric and judge, shared by every test case of a run (and cached);
 * (2) the judge follows the steps (and the rubric) on the judged fields and gives a whole score
 * in the score range, with a reason. Where the judge reports token log-probabilities (OpenAI),
 * the score is their probability-weighted sum over the candidate score tokens (candidates under
 * 1% left out), as deepeval computes it; elsewhere the whole score.
 *
 * Score = (judge score − lowest) ÷ (highest − lowest): 0–1, higher is better, passes when
 * `score >= threshold`. Strict mode asks for 0 or 1 and passes only on 1.
 * @example
 * const refundPolicy = new GEval({
 *   name: "Refund policy",
 *   criteria: "Does the actual output follow the refund policy: refunds within 30 days, store credit after?",
 *   evaluationParams: ["input", "actualOutput"],
 *   threshold: 0.7,
 * });
 */
export class GEval extends BaseMetric<GEvalTemplateFunctions> {
  readonly name: string;
  readonly requiredFields: readonly TestCaseField[];
  readonly judgedFields: readonly TestCaseField[];
  /** The criteria, as given (`null` when only evaluation steps were). */
  readonly criteria: string | null;
  /** The evaluation steps as given (`null` when they are generated from the criteria). */
  readonly evaluationSteps: readonly string[] | null;
  readonly evaluationParams: readonly GEvalField[];
  /** The rubric, sorted by score (`null` without one). */
  readonly rubric: readonly Rubric[] | null;
  /** The lowest and highest score the judge may give. */
  readonly scoreRange: readonly [number, number];
  readonly topLogprobs: number;
  /** Evaluation steps generated from the criteria, by judge and prompt: asked once, shared by every case. */
  readonly #generatedSteps = new Map<string, Promise<string[]>>();

  constructor(options: GEvalOptions) {
    super(options, {
      lowerIsBetter: false,
      steps: [
        "generateEvaluationSteps",
        "generateEvaluationResults",
        "generateStrictEvaluationResults",
      ],
      options: OWN_OPTIONS,
    });
    const own = this.ownOptions as {
      name: string;
      criteria?: string;
      evaluationSteps?: string[];
      evaluationParams: GEvalField[];
      rubric?: Rubric[];
      topLogprobs: number;
    };
    if (own.criteria === undefined && own.evaluationSteps === undefined) {
      throw new ConfigError(
        `GEval "${own.name}" needs \`criteria\` (what to judge, in plain words) or \`evaluationSteps\` (the steps themselves): give one of them.`,
      );
    }
    this.name = `${own.name} [GEval]`;
    this.criteria = own.criteria ?? null;
    this.evaluationSteps = own.evaluationSteps ?? null;
    this.evaluationParams = [...new Set(own.evaluationParams)];
    this.requiredFields = this.evaluationParams;
    this.judgedFields = this.evaluationParams;
    this.rubric = sortRubric(own.rubric);
    this.scoreRange = scoreRangeOf(this.rubric);
    this.topLogprobs = own.topLogprobs;
  }

  protected defaultTemplate(): GEvalTemplateFunctions {
    return {
      generateEvaluationSteps: (args) => GEvalTemplate.generateEvaluationSteps(args),
      generateEvaluationResults: (args) => GEvalTemplate.generateEvaluationResults(args),
      generateStrictEvaluationResults: (args) =>
        GEvalTemplate.generateStrictEvaluationResults(args),
    };
  }

  protected override async estimateSteps(
    context: EstimateContext<GEvalTemplateFunctions>,
  ): Promise<StepEstimate[]> {
    // Loaded when a dry run asks, never by scoring.
    const { estimateGEvalSteps } = await import("./estimate-g-eval-steps.ts");
    const images: ImagePart[] = [];
    return estimateGEvalSteps({
      context,
      parameters: parametersText(this.evaluationParams),
      content: testCaseContent(context, this.evaluationParams, images),
      images: images.length,
      criteria: this.criteria,
      evaluationSteps: this.evaluationSteps,
      rubric: this.rubric === null ? null : formatRubric(this.rubric),
      scoreRange: this.scoreRange,
      strictMode: this.strictMode,
    });
  }

  protected async scoreTestCase(
    context: MetricContext<GEvalTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const parameters = parametersText(this.evaluationParams);
    const evaluationSteps = this.evaluationSteps ?? (await this.#stepsFor(context, parameters));
    const numbered = evaluationSteps.map((step, index) => `${index + 1}. ${step}\n`).join("");
    const images: ImagePart[] = [];
    const content = testCaseContent(context, this.evaluationParams, images);
    const [lowest, highest] = this.scoreRange;

    if (this.strictMode) {
      const { value } = await context.askWithTokens({
        step: "generateStrictEvaluationResults",
        prompt: template.generateStrictEvaluationResults({
          evaluationSteps: numbered,
          testCaseContent: content,
          parameters,
          multimodal,
        }),
        images,
        schema: z.object({ reason: z.string(), score: z.union([z.literal(0), z.literal(1)]) }),
      });
      return this.#scored({
        evaluationSteps,
        judgeScore: value.score,
        weighted: null,
        score: value.score,
        reason: value.reason,
      });
    }

    const { value, logprobs, rawText } = await context.askWithTokens({
      step: "generateEvaluationResults",
      prompt: template.generateEvaluationResults({
        evaluationSteps: numbered,
        testCaseContent: content,
        parameters,
        rubric: this.rubric === null ? null : formatRubric(this.rubric),
        scoreRange: this.scoreRange,
        multimodal,
      }),
      images,
      schema: z.object({ reason: z.string(), score: z.number().min(lowest).max(highest) }),
      topLogprobs: this.topLogprobs,
    });
    const weighted =
      logprobs === null
        ? null
        : weightedScore({ literal: scoreLiteral(rawText, value.score), tokens: logprobs });
    const judged = weighted ?? value.score;
    // A weighted sum of candidates outside the range (a "11" at 2%) stays within 0–1.
    const score = Math.min(1, Math.max(0, (judged - lowest) / (highest - lowest)));
    return this.#scored({
      evaluationSteps,
      judgeScore: value.score,
      weighted,
      score,
      reason: value.reason,
    });
  }

  #scored(outcome: {
    evaluationSteps: readonly string[];
    judgeScore: number;
    weighted: number | null;
    score: number;
    reason: string;
  }): ScoredSteps {
    const judged = {
      score: outcome.judgeScore,
      weightedScore: outcome.weighted,
      scoreRange: [...this.scoreRange],
    };
    return {
      score: outcome.score,
      steps: [
        ...(this.criteria === null ? [] : [{ label: "Criteria", value: this.criteria }]),
        { label: "Evaluation steps", value: outcome.evaluationSteps },
        ...(this.rubric === null ? [] : [{ label: "Rubric", value: formatRubric(this.rubric) }]),
        { label: "Judge score", value: judged },
      ],
      details: { evaluationSteps: [...outcome.evaluationSteps], judgeScore: judged },
      planReason: () => ({ text: outcome.reason }),
    };
  }

  /** The evaluation steps generated from the criteria: asked of this judge once, then shared. */
  #stepsFor(context: MetricContext<GEvalTemplateFunctions>, parameters: string): Promise<string[]> {
    const prompt = context.template.generateEvaluationSteps({
      criteria: this.criteria ?? "",
      parameters,
      multimodal: context.multimodal,
    });
    const key = `${context.judgeName}\n${prompt}`;
    let steps = this.#generatedSteps.get(key);
    if (steps === undefined) {
      steps = context
        .ask({ step: "generateEvaluationSteps", prompt, images: [], schema: stepsSchema })
        .then((answer) => answer.steps);
      this.#generatedSteps.set(key, steps);
      // A failure is not kept: the next case asks again (and this one reports the error).
      steps.catch(() => this.#generatedSteps.delete(key));
    }
    return steps;
  }
}
