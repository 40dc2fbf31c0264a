import type { JudgeAnswerWithTokens, JudgeStep } from "../judge/structured-output.ts";
import type { ImagePart } from "../test-case/image.ts";
import type { LLMTestCase, TestCaseField } from "../test-case/llm-test-case.ts";
import type { Verdict } from "./shared/verdicts.ts";

/**
 * What a metric's steps extracted and judged on one test case, read after `measure()` as
 * `metric.verdicts`, `metric.opinions` (Toxicity, Bias) and `metric.statements` (Answer
 * Relevancy). Frozen: reading them never changes the metric.
 */
export interface MetricDetails {
  /** One verdict per extracted item, in order (empty when nothing was extracted). */
  verdicts?: ReadonlyArray<Readonly<Verdict>>;
  /** Opinions extracted from `actualOutput` (Toxicity, Bias). */
  opinions?: readonly string[];
  /** Statements extracted from `actualOutput` (Answer Relevancy). */
  statements?: readonly string[];
  /** Whatever else a metric's steps produced (G-Eval's `evaluationSteps`, a custom metric's own), as JSON. */
  readonly [detail: string]: unknown;
}

/** One intermediate step shown in verbose logs. */
export interface VerboseStep {
  label: string;
  value: unknown;
  /**
   * For verdicts, the one that counts against the output where the metric's direction does
   * not say it (see `MetricStep.flaggedVerdict`), for the dashboard's colours.
   */
  flaggedVerdict?: string;
}

/**
 * What a metric's reason step needs: a judge step, or — when there is nothing to explain —
 * why the score is what it is, written into `The score is 0.00 because <because>.`
 */
export type ReasonPlan =
  | { judge: Omit<JudgeStep<{ reason: string }>, "metric"> }
  | { because: string }
  /** The reason as it is, e.g. what the scoring step's judge already said (`null`: none). */
  | { text: string | null };

/** What a metric's scoring produced before strict mode and the reason. */
export interface ScoredSteps {
  score: number;
  steps: VerboseStep[];
  /** Plans the reason for the final score (after strict mode). */
  planReason: (score: number) => ReasonPlan;
  /** What the steps extracted and judged, for `metric.verdicts` and friends. */
  details: MetricDetails;
}

/**
 * Tools a metric's scoring gets (`BaseMetric.scoreTestCase`): the test case, its prompt
 * functions, and the judge to ask; it gives back {@link ScoredSteps}.
 */
export interface MetricContext<Template> {
  testCase: LLMTestCase;
  /** The resolved prompt functions (built-in, overridden by `evaluationTemplate`). */
  template: Template;
  /** Whether the judged fields hold images. */
  multimodal: boolean;
  /** Renders a field as prompt text; its images are numbered and sent with the prompt. */
  render: (field: TestCaseField, images: ImagePart[]) => string;
  /** Asks the judge one step (structured output, lenient parsing, one re-ask). */
  ask: <T>(step: Omit<JudgeStep<T>, "metric">) => Promise<T>;
  /**
   * Asks like {@link MetricContext.ask}, and returns with the answer the judge's raw text and,
   * when the step set `topLogprobs` and the judge reports them, its token log-probabilities.
   */
  askWithTokens: <T>(step: Omit<JudgeStep<T>, "metric">) => Promise<JudgeAnswerWithTokens<T>>;
  /** The judge's name (part of every cache key): what a metric keys anything it shares by. */
  judgeName: string;
}
