import { type EstimateContext, exactly, type StepEstimate } from "../metric-estimate.ts";
import { rangeOf } from "../shared/estimate-items.ts";
import type { GEvalTemplate } from "./prompts.ts";

/** How many evaluation steps the judge writes from criteria: 3 or 4, asked for. */
const GENERATED_STEPS = { low: 1, expected: 4, high: 8 };
/** Characters of a generated evaluation step, and of the reason of a score. */
const STEP_CHARACTERS = 90;
const REASON_CHARACTERS = { low: 40, expected: 200, high: 1_000 };

/**
 * The estimate of G-Eval on one case: with criteria, one call that writes the evaluation
 * steps, once per run (shared by every case, then cached); then one scoring call a case,
 * built with the metric's own template and the case's judged fields.
 */
export function estimateGEvalSteps(options: {
  context: EstimateContext<
    Pick<
      typeof GEvalTemplate,
      "generateEvaluationSteps" | "generateEvaluationResults" | "generateStrictEvaluationResults"
    >
  >;
  /** The judged fields in words: `"Input and Actual Output"`. */
  parameters: string;
  /** The judged fields of the case as the scoring prompt quotes them. */
  content: string;
  /** Images in them. */
  images: number;
  criteria: string | null;
  evaluationSteps: readonly string[] | null;
  /** The rubric as the prompt writes it; `null` without one. */
  rubric: string | null;
  scoreRange: readonly [number, number];
  strictMode: boolean;
}): StepEstimate[] {
  const { context, evaluationSteps, parameters, content } = options;
  const { template, tokens, multimodal } = context;
  const typicalSteps = (count: number) =>
    evaluationSteps ??
    Array.from({ length: count }, (_, index) =>
      `Step ${index + 1}: check the ${parameters} against the criterion`.padEnd(
        STEP_CHARACTERS,
        ".",
      ),
    );
  const scoringPrompt = (steps: readonly string[]) => {
    const numbered = steps.map((step, index) => `${index + 1}. ${step}\n`).join("");
    const prompt = options.strictMode
      ? template.generateStrictEvaluationResults({
          evaluationSteps: numbered,
          testCaseContent: content,
          parameters,
          multimodal,
        })
      : template.generateEvaluationResults({
          evaluationSteps: numbered,
          testCaseContent: content,
          parameters,
          rubric: options.rubric,
          scoreRange: options.scoreRange,
          multimodal,
        });
    return tokens(prompt, options.images);
  };
  const answer = (reasonCharacters: number) =>
    tokens(JSON.stringify({ reason: "x".repeat(reasonCharacters), score: 10 }));
  const scoring: StepEstimate = {
    step: options.strictMode ? "generateStrictEvaluationResults" : "generateEvaluationResults",
    calls: exactly(1),
    inputTokens: rangeOf(
      scoringPrompt(typicalSteps(GENERATED_STEPS.low)),
      scoringPrompt(typicalSteps(GENERATED_STEPS.expected)),
      scoringPrompt(typicalSteps(GENERATED_STEPS.high)),
    ),
    outputTokens: rangeOf(
      answer(REASON_CHARACTERS.low),
      answer(REASON_CHARACTERS.expected),
      answer(REASON_CHARACTERS.high),
    ),
  };
  if (evaluationSteps !== null || options.criteria === null) return [scoring];
  const stepsAnswer = (count: number) => tokens(JSON.stringify({ steps: typicalSteps(count) }));
  return [
    {
      step: "generateEvaluationSteps",
      calls: exactly(1),
      inputTokens: exactly(
        tokens(
          template.generateEvaluationSteps({ criteria: options.criteria, parameters, multimodal }),
        ),
      ),
      outputTokens: rangeOf(
        stepsAnswer(GENERATED_STEPS.low),
        stepsAnswer(GENERATED_STEPS.expected),
        stepsAnswer(GENERATED_STEPS.high),
      ),
      oncePerRun: true,
    },
    scoring,
  ];
}
