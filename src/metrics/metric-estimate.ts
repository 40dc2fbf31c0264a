import type { EstimateRange } from "../results/cost-estimate.ts";
import type { ImagePart } from "../test-case/image.ts";
import type { LLMTestCase, TestCaseField } from "../test-case/llm-test-case.ts";

/**
 * What one judge step of a metric is expected to cost on one test case (one trial): what a
 * dry run prices. Calls are a range because a step may be skipped (a verdict step when nothing
 * was extracted); tokens are per call.
 */
export interface StepEstimate {
  /** The step's name (its prompt function), e.g. `"generateVerdicts"`. */
  step: string;
  /** Calls of the step on the case, e.g. `{ low: 0, expected: 0.8, high: 1 }` for a step asked only when the one before found something. */
  calls: EstimateRange;
  /** Prompt tokens of one call. */
  inputTokens: EstimateRange;
  /** Completion tokens of one call. */
  outputTokens: EstimateRange;
  /**
   * The step is asked once per metric and judge, whatever the number of cases (G-Eval's
   * evaluation steps): a dry run counts it once.
   */
  oncePerRun?: boolean;
  /**
   * The prompt the step is expected to send, built with the typical items, when the estimate
   * builds one: cases expected to send the same prompt are counted once (the run asks it once,
   * the cache answers the others), as two short answers that extract the same opinions do.
   */
  prompt?: string;
}

/** What {@link BaseMetric.estimateSteps} gets to estimate one test case. */
export interface EstimateContext<Template> {
  testCase: LLMTestCase;
  /** The resolved prompt functions (built-in, overridden by `evaluationTemplate`): build prompts with typical items to count their tokens. */
  template: Template;
  /** Whether the judged fields hold images. */
  multimodal: boolean;
  /** Renders a field as prompt text, as scoring does; its images are added to `images`. */
  render: (field: TestCaseField, images: ImagePart[]) => string;
  /** Tokens of a prompt or answer as verdict estimates them: characters ÷ 4, plus 85 an image. */
  tokens: (text: string, images?: number) => number;
}

/** A range that is one known value. */
export function exactly(value: number): EstimateRange {
  return { low: value, expected: value, high: value };
}
