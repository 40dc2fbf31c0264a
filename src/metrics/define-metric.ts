import { createHash } from "node:crypto";
import type { ZodType, z } from "zod";
import type { ImagePart } from "../test-case/image.ts";
import type { LLMTestCase, TestCaseField } from "../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "./base-metric.ts";
import type { MetricContext, MetricDetails, ScoredSteps } from "./metric-context.ts";
import type { EstimateContext, StepEstimate } from "./metric-estimate.ts";

/** A metric's prompts: one function per judge step, taking what it needs and returning the prompt. */
// biome-ignore lint/suspicious/noExplicitAny: each prompt declares its own arguments.
export type MetricPrompts = Record<string, (args: any) => string>;

/** What a defined metric's `score` gets. */
export interface DefinedMetricContext<Prompts extends MetricPrompts, Options> {
  /** The test case being scored. */
  testCase: LLMTestCase;
  /** The metric's own options, checked, with their defaults. */
  options: Options;
  /**
   * A field as prompt text: text as it is, lists and other values as JSON. Images in it are
   * numbered `[image N]` and sent with the next `ask`.
   */
  text: (field: TestCaseField) => string;
  /**
   * Asks the judge one step: the prompt is `prompts[step](args)` (or the user's
   * `evaluationTemplate` override of it); the answer must satisfy `schema`. Lenient parsing,
   * one re-ask, then a `JudgeOutputError`.
   */
  ask: <Step extends keyof Prompts & string, T>(
    step: Step,
    args: Parameters<Prompts[Step]>[0],
    schema: ZodType<T>,
  ) => Promise<T>;
  /** Whether the judged fields hold images. */
  multimodal: boolean;
}

/** What a defined metric's `estimate` gets: one test case, to estimate without asking. */
export interface DefinedEstimateContext<Prompts extends MetricPrompts, Options> {
  testCase: LLMTestCase;
  /** The metric's own options, checked, with their defaults. */
  options: Options;
  /** The prompt functions (the user's `evaluationTemplate` overrides included): build a prompt with typical arguments to count its tokens. */
  prompts: Prompts;
  /** A field as prompt text, as `score`'s `text` gives it. */
  text: (field: TestCaseField) => string;
  /** Tokens of a prompt or answer as verdict estimates them: characters ÷ 4, plus 85 an image. */
  tokens: (text: string, images?: number) => number;
}

/** What a defined metric's `score` returns. */
export interface DefinedMetricScore {
  /** From 0 to 1. */
  score: number;
  /** Why, in a sentence or two (kept when `includeReason` is on). */
  reason?: string | null;
  /** What the steps produced, shown by reports and the dashboard: one step per key (JSON). */
  details?: Record<string, unknown>;
}

/** The definition {@link defineMetric} takes. */
export interface MetricDefinition<
  Prompts extends MetricPrompts,
  Own extends Record<string, ZodType>,
> {
  /** Shown in results and reports, e.g. `"Politeness"`. */
  name: string;
  /** Fields every test case must have (missing or blank ones are a `MissingTestCaseParamsError`). */
  requiredFields: readonly TestCaseField[];
  /** Fields sent to the judge (their images must be sendable). @default requiredFields */
  judgedFields?: readonly TestCaseField[];
  /** True when a lower score is better (passes when `score <= threshold`). @default false */
  lowerIsBetter?: boolean;
  /** The metric's own options: a zod schema each (`.default()` for a default). Any other option is refused. */
  options?: Own;
  /** One prompt function per judge step; users may override any with `evaluationTemplate`. */
  prompts: Prompts;
  /**
   * What the metric expects to ask the judge on one test case, step by step, for dry runs
   * (`evaluate({ dryRun: true })`): each step's calls (a range, when a step may be skipped) and
   * the tokens of a call. By default every prompt is asked once a case, each prompt the judged
   * fields plus some instructions, each answer a short JSON object; a dry run counts the first
   * step's real prompt in any case.
   */
  estimate?: (
    context: DefinedEstimateContext<Prompts, { [Key in keyof Own]: z.output<Own[Key]> }>,
  ) => StepEstimate[];
  /** Scores one test case. */
  score: (
    context: DefinedMetricContext<Prompts, { [Key in keyof Own]: z.output<Own[Key]> }>,
  ) => Promise<DefinedMetricScore>;
}

/** Options of a defined metric: the base ones and its own. */
export type DefinedMetricOptions<
  Prompts extends MetricPrompts,
  Own extends Record<string, ZodType>,
> = BaseMetricOptions<Prompts> & { [Key in keyof Own]?: z.input<Own[Key]> };

/** The class {@link defineMetric} returns: `new Metric(options)`. */
export type DefinedMetricClass<
  Prompts extends MetricPrompts,
  Own extends Record<string, ZodType>,
> = new (options?: DefinedMetricOptions<Prompts, Own>) => BaseMetric<Prompts>;

/**
 * Defines a metric from a name, its prompts and a `score` function: the returned class takes
 * the options every metric takes (`threshold`, `model`, `strictMode`, `includeReason`,
 * `evaluationTemplate`, …) and the metric's own, checks them (a misspelled one is a
 * `ConfigError`), and works wherever the built-in metrics do: `measure()`, `evaluate()`,
 * Vitest, reports, the dashboard, resume and the cache. Every option, and the source of the
 * prompts and of `score`, is part of the metric's fingerprint, so a changed one is never
 * served a stale result.
 * @example
 * const Politeness = defineMetric({
 *   name: "Politeness",
 *   requiredFields: ["actualOutput"],
 *   prompts: {
 *     rate: ({ reply }: { reply: string }) =>
 *       `Rate how polite this reply is, 0 (rude) to 10 (warm). Reply: ${reply}. Answer as JSON {"reason": "…", "score": 0-10}.`,
 *   },
 *   async score({ ask, text }) {
 *     const answer = await ask("rate", { reply: text("actualOutput") },
 *       z.object({ reason: z.string(), score: z.number().min(0).max(10) }));
 *     return { score: answer.score / 10, reason: answer.reason };
 *   },
 * });
 * await new Politeness({ threshold: 0.7 }).measure({ input: "…", actualOutput: "…" });
 */
export function defineMetric<
  Prompts extends MetricPrompts,
  // biome-ignore lint/complexity/noBannedTypes: no own options is the empty record.
  Own extends Record<string, ZodType> = {},
>(definition: MetricDefinition<Prompts, Own>): DefinedMetricClass<Prompts, Own> {
  const steps = Object.keys(definition.prompts);
  const source = createHash("sha256")
    .update(String(definition.score))
    .update(steps.map((step) => `${step}:${String(definition.prompts[step])}`).join("\n"))
    .digest("hex")
    .slice(0, 16);
  const className = `${definition.name.replace(/[^A-Za-z0-9]+/g, "") || "Defined"}Metric`;

  class DefinedMetric extends BaseMetric<Prompts> {
    readonly name = definition.name;
    readonly requiredFields = definition.requiredFields;
    readonly judgedFields = definition.judgedFields ?? definition.requiredFields;

    constructor(options?: DefinedMetricOptions<Prompts, Own>) {
      super(options as BaseMetricOptions<Prompts>, {
        lowerIsBetter: definition.lowerIsBetter ?? false,
        steps,
        ...(definition.options ? { options: definition.options } : {}),
      });
    }

    protected defaultTemplate(): Prompts {
      return { ...definition.prompts };
    }

    override config(): Record<string, unknown> {
      return { ...super.config(), definition: source };
    }

    protected override async estimateSteps(
      context: EstimateContext<Prompts>,
    ): Promise<StepEstimate[]> {
      if (definition.estimate === undefined) return super.estimateSteps(context);
      const images: ImagePart[] = [];
      return definition.estimate({
        testCase: context.testCase,
        options: this.ownOptions as { [Key in keyof Own]: z.output<Own[Key]> },
        prompts: context.template,
        text: (field) => fieldText(context, field, images),
        tokens: context.tokens,
      });
    }

    protected async scoreTestCase(context: MetricContext<Prompts>): Promise<ScoredSteps> {
      let images: ImagePart[] = [];
      const template = context.template as Record<string, (args: unknown) => string>;
      const scored = await definition.score({
        testCase: context.testCase,
        options: this.ownOptions as { [Key in keyof Own]: z.output<Own[Key]> },
        multimodal: context.multimodal,
        text: (field) => fieldText(context, field, images),
        ask: (step, args, schema) => {
          const prompt = (template[step] as (args: unknown) => string)(args);
          const sent = images;
          images = [];
          return context.ask({ step, prompt, images: sent, schema });
        },
      });
      const details: MetricDetails = { ...(scored.details ?? {}) };
      return {
        score: scored.score,
        steps: Object.entries(details).map(([label, value]) => ({ label, value })),
        details,
        planReason: () => ({ text: scored.reason ?? null }),
      };
    }
  }
  Object.defineProperty(DefinedMetric, "name", { value: className });
  return DefinedMetric;
}

function fieldText(
  context: Pick<MetricContext<object>, "testCase" | "render">,
  field: TestCaseField,
  images: ImagePart[],
) {
  if (field === "input" || field === "actualOutput" || field === "expectedOutput") {
    return context.render(field, images);
  }
  const value = context.testCase[field];
  return typeof value === "string" ? value : JSON.stringify(value ?? null, null, 2);
}
