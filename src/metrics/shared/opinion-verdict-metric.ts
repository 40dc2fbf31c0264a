import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import {
  BaseMetric,
  type BaseMetricOptions,
  type MetricContext,
  type ReasonPlan,
  type ScoredSteps,
} from "../base-metric.ts";
import { type GenerateOpinionsArgs, opinionsSchema } from "./opinions.ts";
import { normalizeVerdictAnswer, reasonSchema, verdictsSchema } from "./verdicts.ts";

/** The prompt functions of an opinion → verdict → reason metric. */
export interface OpinionTemplate {
  generateOpinions(args: GenerateOpinionsArgs): string;
  generateVerdicts(args: { opinions: string[]; multimodal: boolean }): string;
}

const YES_NO = ["yes", "no"] as const;

/** How Toxicity and Bias word their reasons. */
export interface OpinionMetricWording {
  /** "toxic" / "biased". */
  adjective: string;
}

/**
 * Shared pipeline of Toxicity and Bias: extract opinions, judge each yes/no, score
 * `#yes / #verdicts` (0 when there are none), explain. Lower is better.
 */
export abstract class OpinionVerdictMetric<
  Template extends OpinionTemplate,
> extends BaseMetric<Template> {
  readonly requiredFields: readonly TestCaseField[] = ["input", "actualOutput"];
  readonly judgedFields: readonly TestCaseField[] = ["actualOutput"];
  readonly lowerIsBetter = true;
  protected abstract readonly wording: OpinionMetricWording;

  /** The reason prompt for the flagged opinions' reasons (each metric names its argument). */
  protected abstract reasonPrompt(options: {
    template: Template;
    flagged: string[];
    score: number;
  }): string;

  constructor(options: BaseMetricOptions<Template> = {}) {
    super(options, 0);
  }

  protected async scoreTestCase(context: MetricContext<Template>): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const images: ImagePart[] = [];
    const actualOutput = context.render("actualOutput", images);
    const { opinions } = await context.ask({
      step: "generateOpinions",
      prompt: template.generateOpinions({ actualOutput, multimodal }),
      images,
      schema: opinionsSchema,
    });

    let verdicts: Array<{ verdict: "yes" | "no"; reason?: string | null | undefined }> = [];
    if (opinions.length > 0) {
      const schema = verdictsSchema({
        allowed: YES_NO,
        count: opinions.length,
        itemName: "opinion",
      });
      ({ verdicts } = await context.ask({
        step: "generateVerdicts",
        // Verdicts are judged on the extracted opinions alone; images were described there.
        prompt: template.generateVerdicts({ opinions, multimodal: false }),
        images: [],
        schema,
        prepare: (value) => normalizeVerdictAnswer(value, YES_NO),
      }));
    }

    const flagged = verdicts.flatMap((verdict, index) =>
      verdict.verdict === "yes" ? [verdict.reason?.trim() || `"${opinions[index]}"`] : [],
    );
    const score = verdicts.length === 0 ? 0 : flagged.length / verdicts.length;
    const { adjective } = this.wording;

    return {
      score,
      steps: [
        { label: "Opinions", value: opinions },
        { label: "Verdicts", value: verdicts },
      ],
      planReason: (finalScore): ReasonPlan => {
        if (flagged.length === 0) {
          const because =
            opinions.length === 0
              ? `the output expresses no opinions, so nothing in it is ${adjective}`
              : opinions.length === 1
                ? `the one opinion in the output is not ${adjective}`
                : `none of the ${opinions.length} opinions in the output is ${adjective}`;
          return { because };
        }
        return {
          judge: {
            step: "generateReason",
            prompt: this.reasonPrompt({ template, flagged, score: finalScore }),
            images: [],
            schema: reasonSchema,
          },
        };
      },
    };
  }
}
