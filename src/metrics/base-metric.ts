import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { MissingTestCaseParamsError } from "../errors/missing-test-case-params-error.ts";
import { createDirectTransport } from "../judge/direct-transport.ts";
import { JudgeLedger } from "../judge/judge-ledger.ts";
import type { JudgeModel } from "../judge/judge-model.ts";
import type { JudgeTransport } from "../judge/judge-transport.ts";
import { resolveJudgeLazily } from "../judge/resolve-judge-lazily.ts";
import type { ModelSpec } from "../judge/resolve-model.ts";
import {
  type AskJudgeOptions,
  askJudge,
  askJudgeWithTokens,
  type JudgeStep,
} from "../judge/structured-output.ts";
import type { JudgeTextMode } from "../results/judge-text.ts";
import { toJsonValue, WHOLE_VALUE } from "../results/to-json-value.ts";
import { hasImages, type ImagePart, loadImage, renderContent } from "../test-case/image.ts";
import {
  describeTestCase,
  isBlankField,
  type LLMTestCase,
  type LLMTestCaseFields,
  type TestCaseField,
  toTestCase,
} from "../test-case/llm-test-case.ts";
import { checkMetricOptions, type MetricOptionSpecs } from "./check-metric-options.ts";
import type { MetricContext, MetricDetails, ScoredSteps, VerboseStep } from "./metric-context.ts";
import type { EstimateContext, StepEstimate } from "./metric-estimate.ts";
import { type MetricRunResult, toMetricRunResult } from "./metric-run-result.ts";
import { resolveEvaluationTemplate } from "./resolve-evaluation-template.ts";
import { checkEvaluationTemplate } from "./shared/check-evaluation-template.ts";
import { formatScore } from "./shared/prompt-text.ts";
import type { Verdict } from "./shared/verdicts.ts";

/** Options every metric takes. */
export interface BaseMetricOptions<Template extends object> {
  /**
   * Pass bound. Lower-is-better metrics (Toxicity, Bias) pass when `score <= threshold`;
   * others when `score >= threshold`. `null`: score only, `success` is `null`.
   * @default 0.5
   */
  threshold?: number | null;
  /**
   * The judge: a model string (`"gpt-4.1"`, `"anthropic:claude-sonnet-4-5"`, `"ollama:llama3.1"`, …),
   * an AI SDK language model, or a {@link JudgeModel}.
   * @default process.env.VERDICT_MODEL, else the model saved by `verdict set-model`, else "gpt-4.1"
   */
  model?: ModelSpec;
  /** Produce `reason`. @default true */
  includeReason?: boolean;
  /** Binary score; the threshold is forced to its strictest value. @default false */
  strictMode?: boolean;
  /**
   * `false` runs every judge call of the metric strictly one after another. The steps of
   * Toxicity, Bias, Answer Relevancy and the safety metrics depend on each other, so they are
   * sequential either way; Faithfulness and Summarization ask their independent steps at once
   * unless `false`.
   * @default true
   */
  asyncMode?: boolean;
  /** Print the intermediate steps after measuring (`verboseLogs` is always filled). @default false */
  verboseMode?: boolean;
  /**
   * Overrides any subset of the metric's prompt functions (its steps, camelCase): an object, a
   * class with static methods, or an instance of a class with those methods. A member that
   * looks like a step but is none (`generate_statements`) is a `ConfigError`.
   */
  evaluationTemplate?: Partial<Template>;
}

/** How a metric run reaches its judge; evaluate() passes its scheduler here. */
export interface MetricRunOptions {
  /** The judge, already resolved. Default: resolved from the metric's `model`. */
  judge?: JudgeModel;
  /** Default: direct calls with retries. */
  transport?: JudgeTransport;
  /** Trial index for repeated runs. @default 0 */
  trial?: number;
  signal?: AbortSignal;
  /** Name of the test case in messages. Default: its `name`, else the start of its input. */
  testCaseName?: string;
  /** Overrides `verboseMode` for this run. */
  verbose?: boolean;
  /** Environment for model resolution. @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * What to keep of the judge's prompts and answers: `"text"` returns their texts
   * ({@link MetricRunResult.judgeTexts}), `"hash"` only their hashes on each call.
   * @default "text"
   */
  judgeText?: JudgeTextMode;
}

/** What a metric is, declared once by its class: given to {@link BaseMetric}'s constructor. */
export interface MetricDeclaration {
  /** True when a lower score is better (Toxicity, Bias): passes when `score <= threshold`; strict mode scores 0 or 1 towards it. */
  lowerIsBetter: boolean;
  /** The names of the metric's prompt functions, which `evaluationTemplate` may override. */
  steps: readonly string[];
  /**
   * The metric's own options beyond {@link BaseMetricOptions}, by name: a zod schema each
   * (with `.default()` for a default) or `{ schema, expects }`. Any other option is refused,
   * and every one of them is part of {@link BaseMetric.config} (the fingerprint).
   */
  options?: MetricOptionSpecs;
}

/**
 * What every metric shares: threshold and strict mode, the reason, verbose logs, judge
 * accounting and the state `measure()` fills (`score`, `reason`, `success`, `error`, …).
 */
export abstract class BaseMetric<Template extends object> {
  /** Display name, e.g. `"Toxicity"`. */
  abstract readonly name: string;
  /** Test-case fields the metric needs (missing, empty or blank ones are an error). */
  abstract readonly requiredFields: readonly TestCaseField[];
  /** Fields whose content the metric sends to the judge (their images must be sendable). */
  abstract readonly judgedFields: readonly TestCaseField[];
  /** True for Toxicity and Bias: pass when `score <= threshold`. */
  readonly lowerIsBetter: boolean;

  readonly threshold: number | null;
  readonly strictMode: boolean;
  readonly includeReason: boolean;
  readonly asyncMode: boolean;
  readonly verboseMode: boolean;
  readonly model: ModelSpec | undefined;
  readonly evaluationTemplate: Partial<Template> | undefined;

  score: number | null = null;
  reason: string | null = null;
  success: boolean | null = null;
  error: string | null = null;
  verboseLogs = "";
  evaluationCost: number | null = null;
  evaluationModel: string | null = null;
  inputTokens: number | null = null;
  outputTokens: number | null = null;
  judgeCalls = 0;
  /** What the last `measure()` extracted and judged; read through the getters below. */
  protected lastDetails: MetricDetails = {};
  /**
   * The metric's own options (those beyond {@link BaseMetricOptions}), checked and with their
   * defaults: all of them are part of {@link BaseMetric.config}, so of the fingerprint.
   */
  protected readonly ownOptions: Readonly<Record<string, unknown>>;
  /** The names of the metric's prompt functions, as declared. */
  protected readonly stepNames: readonly string[];

  /**
   * @param options what the user passed: checked against the base options and the metric's own
   *   (`declaration.options`), so a misspelled or mistyped option is a `ConfigError`
   * @param declaration what the metric is: its direction, its prompt steps, its own options
   */
  constructor(options: BaseMetricOptions<Template> | undefined, declaration: MetricDeclaration) {
    // The subclass's `name` field is not set yet; its class name is.
    const metric = new.target.name;
    this.ownOptions = Object.freeze(
      checkMetricOptions({ metric, given: options, own: declaration.options ?? {} }),
    );
    const given = options ?? {};
    const threshold = given.threshold === undefined ? 0.5 : given.threshold;
    this.lowerIsBetter = declaration.lowerIsBetter;
    this.stepNames = [...declaration.steps];
    this.strictMode = given.strictMode ?? false;
    this.threshold = this.strictMode ? (this.lowerIsBetter ? 0 : 1) : threshold;
    this.includeReason = given.includeReason ?? true;
    this.asyncMode = given.asyncMode ?? true;
    this.verboseMode = given.verboseMode ?? false;
    this.model = given.model;
    checkEvaluationTemplate({
      template: given.evaluationTemplate,
      steps: declaration.steps,
      metric,
    });
    this.evaluationTemplate = given.evaluationTemplate;
  }

  /** The built-in prompt functions. */
  protected abstract defaultTemplate(): Template;

  /**
   * The verdicts of the last `measure()`: one per extracted item, in order, each with its
   * judge's reason when given (deepeval's `metric.verdicts`). `[]` when nothing was extracted;
   * `null` before `measure()` or when it failed. Read-only (frozen).
   */
  get verdicts(): ReadonlyArray<Readonly<Verdict>> | null {
    return this.lastDetails.verdicts ?? null;
  }

  /**
   * Everything the steps of the last `measure()` extracted and judged (`verdicts`, `opinions`,
   * `statements`, or a custom metric's own details); `null` before `measure()` or when it
   * failed. Read-only (frozen).
   */
  get details(): Readonly<MetricDetails> | null {
    return this.score === null ? null : this.lastDetails;
  }

  /**
   * Whether the last `measure()` passed (deepeval's `is_successful()`): `true` when it scored
   * within the threshold, or scored at all in score-only mode (threshold `null`); `false` when
   * it scored outside the threshold, failed with an error, or has not run.
   * @example
   * await metric.measure(testCase);
   * if (!metric.isSuccessful()) console.log(metric.reason ?? metric.error);
   */
  isSuccessful(): boolean {
    if (this.error !== null || this.score === null) return false;
    return this.success !== false;
  }

  /**
   * The metric's configuration as plain JSON: what makes two runs of it comparable (stored
   * with runs, and part of the fingerprint that lets a resumed run reuse a result).
   * Overridden templates appear as their source text.
   */
  config(): Record<string, unknown> {
    const template = this.evaluationTemplate as Record<string, unknown> | undefined;
    const base: Record<string, unknown> = {
      name: this.name,
      threshold: this.threshold,
      strictMode: this.strictMode,
      includeReason: this.includeReason,
      model: describeModelSpec(this.model),
      evaluationTemplate: template
        ? Object.fromEntries(
            Object.keys(this.defaultTemplate()).flatMap((step) =>
              typeof template[step] === "function" ? [[step, String(template[step])]] : [],
            ),
          )
        : null,
    };
    // A metric's own options follow (one that shares a base key, like G-Eval's `name`, is
    // already part of it).
    for (const [option, value] of Object.entries(this.ownOptions)) {
      if (!(option in base)) base[option] = configValue(value);
    }
    return base;
  }

  /** Runs the metric's judge steps and scores them. */
  protected abstract scoreTestCase(context: MetricContext<Template>): Promise<ScoredSteps>;

  /**
   * What the metric expects to ask the judge to score one test case, step by step, without
   * asking: the calls of each step (a range: a step may be skipped), and the tokens of each
   * call. What a dry run (`evaluate({ dryRun: true })`) prices, after replacing the steps it can
   * build exactly (the first, and those the judge cache answers) with the real requests. Its
   * code is loaded on the first call, so that scoring alone never loads it.
   * @example
   * await new ToxicityMetric().estimate({ input: "…", actualOutput: "It is great. It opened in 2021." });
   * // [{ step: "generateOpinions", calls: { low: 1, expected: 1, high: 1 }, … }, …]
   */
  async estimate(testCase: LLMTestCase | LLMTestCaseFields): Promise<StepEstimate[]> {
    const { estimateTokens } = await import("../judge/estimate-tokens.ts");
    const validCase = toTestCase(testCase);
    const context: EstimateContext<Template> = {
      testCase: validCase,
      template: this.resolveTemplate(),
      multimodal: this.judgedFields.some((field) => hasImages(validCase[field] as never)),
      render: (field, images) => renderContent((validCase[field] as never) ?? "", images),
      tokens: (text, images = 0) => estimateTokens({ text, images }),
    };
    try {
      return await this.estimateSteps(context);
    } catch {
      // A prompt function of the user's that fails on typical items: the real run will say
      // so; the estimate falls back on the plain one.
      return BaseMetric.prototype.estimateSteps.call(this, context);
    }
  }

  /**
   * The estimate of {@link BaseMetric.estimate}. By default each declared step is asked once
   * per case, its prompt the judged fields plus some instructions, its answer a short JSON
   * object: override it when the metric knows better (its steps' conditions, how many items
   * its steps list).
   */
  protected async estimateSteps(context: EstimateContext<Template>): Promise<StepEstimate[]> {
    const { defaultStepEstimates } = await import("./default-step-estimates.ts");
    return defaultStepEstimates({
      steps: this.stepNames,
      judgedFields: this.judgedFields,
      context,
    });
  }

  /**
   * Scores one test case and stores the outcome on this metric (`score`, `reason`,
   * `success`, …). Throws when the metric cannot score it (after setting `error`).
   * @example
   * const score = await new ToxicityMetric().measure({ input: "…", actualOutput: "…" });
   */
  async measure(
    testCase: LLMTestCase | LLMTestCaseFields,
    options: MetricRunOptions = {},
  ): Promise<number> {
    const { data, error, details } = await this.run(testCase, options);
    this.lastDetails = details ?? {};
    this.score = data.score;
    this.reason = data.reason;
    this.success = data.success;
    this.error = data.error;
    this.verboseLogs = data.verboseLogs;
    this.evaluationCost = data.evaluationCost;
    this.evaluationModel = data.evaluationModel;
    this.inputTokens = data.inputTokens;
    this.outputTokens = data.outputTokens;
    this.judgeCalls = data.judgeCalls;
    if (error) throw error;
    return data.score as number;
  }

  /**
   * Scores one test case without touching this metric's state: what evaluate() uses, so
   * one metric object can score many cases at once.
   */
  async run(
    testCase: LLMTestCase | LLMTestCaseFields,
    options: MetricRunOptions = {},
  ): Promise<MetricRunResult> {
    const ledger = new JudgeLedger({ judgeText: options.judgeText ?? "text" });
    const steps: VerboseStep[] = [];
    let evaluationModel: string | null = null;
    const finish = (outcome: {
      score: number | null;
      reason: string | null;
      error: Error | null;
      details?: MetricDetails;
    }): MetricRunResult =>
      toMetricRunResult({
        metric: this,
        success: this.decideSuccess(outcome.score, outcome.error),
        outcome,
        evaluationModel,
        totals: ledger.totals(),
        steps,
        verbose: options.verbose ?? this.verboseMode,
      });

    try {
      const validCase = toTestCase(testCase);
      const caseName = options.testCaseName ?? describeTestCase(validCase);
      for (const field of this.requiredFields) {
        if (isBlankField(validCase[field])) {
          throw new MissingTestCaseParamsError({ metric: this.name, field, testCase: caseName });
        }
      }
      const judge =
        options.judge ??
        (await resolveJudgeLazily({
          model: this.model,
          ...(options.env ? { env: options.env } : {}),
        }));
      evaluationModel = judge.name;
      await this.checkImages(validCase, judge, caseName);

      const transport = options.transport ?? createDirectTransport();
      // Both made with `new`, never as object literals: see ScoringContext below.
      const judgeCall = <T>(step: Omit<JudgeStep<T>, "metric">): AskJudgeOptions<T> =>
        new AskJudgeCall(
          judge,
          transport,
          { ...step, metric: this.name },
          ledger,
          options.trial ?? 0,
          options.signal,
        );
      const context: MetricContext<Template> = new ScoringContext(
        validCase,
        this.resolveTemplate(),
        this.judgedFields.some((field) => hasImages(validCase[field] as never)),
        (field, images) => renderContent((validCase[field] as never) ?? "", images),
        (step) => askJudge(judgeCall(step)),
        (step) => askJudgeWithTokens(judgeCall(step)),
        judge.name,
      );
      const scored = await this.scoreTestCase(context);
      if (!(typeof scored.score === "number" && scored.score >= 0 && scored.score <= 1)) {
        throw new ConfigError(
          `Metric "${this.name}" scored ${String(scored.score)}, but scores run from 0 to 1: scale the judge's score into that range (e.g. divide a 0–10 score by 10).`,
        );
      }
      steps.push(...scored.steps);
      const score = this.applyStrictMode(scored.score);
      let reason: string | null = null;
      if (this.includeReason) {
        const plan = scored.planReason(score);
        reason =
          "text" in plan
            ? plan.text
            : "because" in plan
              ? `The score is ${formatScore(score)} because ${plan.because}.`
              : (await context.ask(plan.judge)).reason;
      }
      return finish({ score, reason, error: null, details: freezeDetails(scored.details) });
    } catch (error) {
      return finish({ score: null, reason: null, error: asError(error) });
    }
  }

  private resolveTemplate(): Template {
    return resolveEvaluationTemplate({
      metric: this.name,
      defaults: this.defaultTemplate(),
      custom: this.evaluationTemplate,
    });
  }

  private async checkImages(testCase: LLMTestCase, judge: JudgeModel, caseName: string) {
    const images: ImagePart[] = [];
    for (const field of this.judgedFields) renderContent((testCase[field] as never) ?? "", images);
    if (images.length === 0) return;
    if (judge.supportsImages !== true) {
      throw new ConfigError(
        `Judge "${judge.name}" cannot take images, but test case "${caseName}" has ${images.length} image(s) ` +
          `that metric "${this.name}" sends: use a judge that supports images (e.g. gpt-4.1, ` +
          "claude-sonnet-4-5, gemini-2.5-flash), or set supportsImages on your JudgeModel.",
      );
    }
    // Reading every image up front turns a missing file into an error before any judge call.
    await Promise.all(images.map((part) => loadImage(part)));
  }

  private applyStrictMode(score: number): number {
    if (!this.strictMode) return score;
    if (this.lowerIsBetter) return score > 0 ? 1 : 0;
    return score < 1 ? 0 : 1;
  }

  private decideSuccess(score: number | null, error: Error | null): boolean | null {
    if (this.threshold === null) return null;
    if (error || score === null) return false;
    return this.lowerIsBetter ? score <= this.threshold : score >= this.threshold;
  }
}

/**
 * The context a metric's scoring gets for one run (see {@link MetricContext}), made with `new`
 * rather than as an object literal, as is each judge step's call ({@link AskJudgeCall}).
 *
 * V8 tenures an object literal's allocation site once the first objects made there outlive
 * two young-generation collections, which the first cases of a run do (compiling and lazy
 * loading slow them while the young generation is still small), and from then on makes every
 * object there in the old generation. Dead there, such an object keeps what it points at alive
 * through young collections until a full one; these point at the run's closures, and through
 * them at its ledger and its prompts. In half the runs of the 10,000-case bench that kept every
 * case's prompts and metric state, and V8 promoted 250-460 MB instead of 60. Objects made with
 * `new` have no allocation site to tenure.
 */
class ScoringContext<Template> implements MetricContext<Template> {
  testCase: LLMTestCase;
  template: Template;
  multimodal: boolean;
  render: (field: TestCaseField, images: ImagePart[]) => string;
  ask: MetricContext<Template>["ask"];
  askWithTokens: MetricContext<Template>["askWithTokens"];
  judgeName: string;

  constructor(
    testCase: LLMTestCase,
    template: Template,
    multimodal: boolean,
    render: (field: TestCaseField, images: ImagePart[]) => string,
    ask: MetricContext<Template>["ask"],
    askWithTokens: MetricContext<Template>["askWithTokens"],
    judgeName: string,
  ) {
    this.testCase = testCase;
    this.template = template;
    this.multimodal = multimodal;
    this.render = render;
    this.ask = ask;
    this.askWithTokens = askWithTokens;
    this.judgeName = judgeName;
  }
}

/** One judge step of a metric run, as `askJudge` takes it (see {@link ScoringContext}). */
class AskJudgeCall<T> implements AskJudgeOptions<T> {
  judge: JudgeModel;
  transport: JudgeTransport;
  step: JudgeStep<T>;
  ledger: JudgeLedger;
  trial: number;
  declare signal?: AbortSignal;

  constructor(
    judge: JudgeModel,
    transport: JudgeTransport,
    step: JudgeStep<T>,
    ledger: JudgeLedger,
    trial: number,
    signal: AbortSignal | undefined,
  ) {
    this.judge = judge;
    this.transport = transport;
    this.step = step;
    this.ledger = ledger;
    this.trial = trial;
    if (signal !== undefined) this.signal = signal;
  }
}

function freezeDetails(details: MetricDetails): MetricDetails {
  // Plain JSON: what a custom metric returns may hold anything; what is kept can be stored.
  return deepFreeze(toJsonValue(details, WHOLE_VALUE)) as MetricDetails;
}

function deepFreeze(value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** An option as it appears in `config()`: JSON, with functions as their source text. */
function configValue(value: unknown): unknown {
  if (typeof value === "function") return String(value);
  if (Array.isArray(value)) return value.map(configValue);
  if (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, configValue(item)]));
  }
  return toJsonValue(value, WHOLE_VALUE);
}

function describeModelSpec(model: ModelSpec | undefined): string | null {
  if (model === undefined) return null;
  if (typeof model === "string") return model;
  if ("name" in model && typeof model.name === "string") return model.name;
  const languageModel = model as { provider?: unknown; modelId?: unknown };
  return `${String(languageModel.provider)}:${String(languageModel.modelId)}`;
}

function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  return new EvalError("JUDGE_CALL", `Unexpected failure: ${String(error)}`, { cause: error });
}
