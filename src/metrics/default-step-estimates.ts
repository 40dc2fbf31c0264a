import type { EstimateRange } from "../results/cost-estimate.ts";
import type { ImagePart } from "../test-case/image.ts";
import type { TestCaseField } from "../test-case/llm-test-case.ts";
import { type EstimateContext, exactly, type StepEstimate } from "./metric-estimate.ts";

/** Prompt tokens a step of an unknown metric adds to the text it judges: its instructions. */
const INSTRUCTION_TOKENS: EstimateRange = { low: 50, expected: 300, high: 2_000 };
/** Completion tokens of a step of an unknown metric: a JSON answer with a score and a reason. */
const ANSWER_TOKENS: EstimateRange = { low: 10, expected: 100, high: 1_000 };

/**
 * The estimate of a metric that gives none of its own (a `BaseMetric` subclass, `defineMetric`
 * without `estimate`): each of its steps asked once per case (the first surely, the others
 * maybe), each prompt the judged text plus some instructions, each answer a short JSON object.
 * A dry run replaces the first step's prompt with the real one, built by the metric itself.
 */
export function defaultStepEstimates(options: {
  steps: readonly string[];
  /** The fields the metric sends to the judge. */
  judgedFields: readonly TestCaseField[];
  context: EstimateContext<unknown>;
}): StepEstimate[] {
  const { context } = options;
  const images: ImagePart[] = [];
  const judged = options.judgedFields
    .map((field) => {
      const value = context.testCase[field];
      // Text and content with images as the prompt shows them; lists, tools and metadata as JSON.
      return field === "input" || field === "actualOutput" || field === "expectedOutput"
        ? context.render(field, images)
        : JSON.stringify(value ?? null);
    })
    .join("\n");
  const judgedTokens = context.tokens(judged, images.length);
  return options.steps.map((step, position) => ({
    step,
    calls: position === 0 ? exactly(1) : { low: 0, expected: 1, high: 1 },
    inputTokens: {
      low: judgedTokens + INSTRUCTION_TOKENS.low,
      expected: judgedTokens + INSTRUCTION_TOKENS.expected,
      high: judgedTokens + INSTRUCTION_TOKENS.high,
    },
    outputTokens: { ...ANSWER_TOKENS },
  }));
}
