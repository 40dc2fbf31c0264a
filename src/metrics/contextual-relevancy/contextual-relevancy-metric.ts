import { z } from "zod";
import { preferInFakeJudge } from "../../judge/fake-judge-preference.ts";
import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric, type BaseMetricOptions } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import { hasLetterOrDigit, itemText } from "../shared/answer-text.ts";
import { templateSteps } from "../shared/check-evaluation-template.ts";
import { judgeReason, normalizeVerdictAnswer, reasonOrItem } from "../shared/verdicts.ts";
import { YES_NO } from "../shared/yes-no-verdicts.ts";
import { ContextualRelevancyTemplate, EMPTY_NODE_REASON } from "./prompts.ts";

const STEPS = ["generateVerdicts", "generateReason"] as const;

/** The prompt functions of {@link ContextualRelevancyMetric}, any of which `evaluationTemplate` may replace. */
export type ContextualRelevancyTemplateFunctions = Pick<
  typeof ContextualRelevancyTemplate,
  "generateVerdicts" | "generateReason"
>;

/** Options of {@link ContextualRelevancyMetric}: the options every metric takes. */
export type ContextualRelevancyMetricOptions =
  BaseMetricOptions<ContextualRelevancyTemplateFunctions>;

/**
 * Schema of a node's verdict step: at least one statement (a node without content gets one
 * "no"), each with a yes/no verdict and an optional reason.
 */
export const nodeVerdictsSchema = preferInFakeJudge(
  z.object({
    verdicts: z
      .array(
        z.object({
          statement: itemText,
          verdict: z.enum(YES_NO),
          reason: z.string().nullish(),
        }),
      )
      .min(1, {
        error: `list every statement of the node with its verdict; a node without any statement gets one "no" verdict with the node's text as its statement and the reason "${EMPTY_NODE_REASON}"`,
      }),
  }),
  ["yes"],
);

/** One statement of a node and its verdict. */
interface StatementVerdict {
  /** The node's rank in `retrievalContext`, from 1. */
  node: number;
  statement: string;
  verdict: "yes" | "no";
  reason: string | null;
}

/**
 * Contextual Relevancy: how much of what the retriever fetched is relevant to the input (its
 * signal-to-noise ratio), without any expected output.
 *
 * Steps: (1) for each `retrievalContext` node, one call that breaks the node into statements
 * and judges each relevant to `input` ("yes") or not ("no"); the nodes are asked at once (one
 * after another with `asyncMode: false`), and a node without a letter or digit gets one "no"
 * without a call. (2) A reason, asked of the judge only when some statement is irrelevant;
 * otherwise verdict writes it.
 *
 * Score = relevant statements ÷ statements over all nodes (deepeval's; 0 when there are
 * none). Higher is better: passes when `score >= threshold`. Strict mode: anything below 1
 * scores 0, and the threshold is 1.
 *
 * Not for: whether the right information was retrieved at all (Contextual Recall) or ranked
 * first (Contextual Precision): the right passage buried in noise scores low.
 * @example
 * const metric = new ContextualRelevancyMetric({ threshold: 0.7 });
 * await metric.measure({
 *   input: "What if these shoes don't fit?",
 *   retrievalContext: ["All customers are eligible for a 30 day full refund at no extra cost."],
 * });
 */
export class ContextualRelevancyMetric extends BaseMetric<ContextualRelevancyTemplateFunctions> {
  readonly name = "Contextual Relevancy";
  readonly requiredFields: readonly TestCaseField[] = ["input", "retrievalContext"];
  readonly judgedFields: readonly TestCaseField[] = ["input", "retrievalContext"];

  constructor(options: ContextualRelevancyMetricOptions = {}) {
    super(options, { lowerIsBetter: false, steps: STEPS });
  }

  protected defaultTemplate(): ContextualRelevancyTemplateFunctions {
    return templateSteps(ContextualRelevancyTemplate, STEPS);
  }

  protected async scoreTestCase(
    context: MetricContext<ContextualRelevancyTemplateFunctions>,
  ): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const images: ImagePart[] = [];
    const input = context.render("input", images);
    const nodes = [...(context.testCase.retrievalContext ?? [])];
    const judgeNode = async (node: string, index: number): Promise<StatementVerdict[]> => {
      if (!hasLetterOrDigit(node)) {
        return [{ node: index + 1, statement: node, verdict: "no", reason: EMPTY_NODE_REASON }];
      }
      const { verdicts } = await context.ask({
        step: "generateVerdicts",
        prompt: template.generateVerdicts({ input, context: node, multimodal }),
        images,
        schema: nodeVerdictsSchema,
        prepare: (value) => normalizeVerdictAnswer(value, YES_NO),
      });
      return verdicts.map((verdict) => ({
        node: index + 1,
        statement: verdict.statement,
        verdict: verdict.verdict,
        reason: verdict.reason ?? null,
      }));
    };
    const perNode: StatementVerdict[][] = [];
    if (this.asyncMode) {
      perNode.push(...(await Promise.all(nodes.map(judgeNode))));
    } else {
      for (const [index, node] of nodes.entries()) perNode.push(await judgeNode(node, index));
    }
    const verdicts = perNode.flat();
    const irrelevant = verdicts.filter((verdict) => verdict.verdict !== "yes");
    const score =
      verdicts.length === 0 ? 0 : (verdicts.length - irrelevant.length) / verdicts.length;
    return {
      score,
      steps: [
        { label: "Statements", value: verdicts.map((verdict) => verdict.statement) },
        {
          label: "Verdicts",
          value: verdicts.map(({ node, verdict, reason }) => ({ node, verdict, reason })),
        },
      ],
      details: { verdicts },
      planReason: (finalScore): ReasonPlan => {
        if (irrelevant.length === 0) {
          let because: string;
          if (verdicts.length === 0) because = "the retrieval context holds no statement";
          else if (verdicts.length === 1) {
            because = "the one statement of the retrieval context is relevant to the input";
          } else {
            because = `all ${verdicts.length} statements of the retrieval context are relevant to the input`;
          }
          return { because };
        }
        return judgeReason(
          template.generateReason({
            input,
            irrelevantStatements: irrelevant.map((verdict) =>
              reasonOrItem(verdict, verdict.statement),
            ),
            relevantStatements: verdicts
              .filter((verdict) => verdict.verdict === "yes")
              .map((verdict) => verdict.statement),
            score: finalScore,
            multimodal,
          }),
          images,
        );
      },
    };
  }
}
