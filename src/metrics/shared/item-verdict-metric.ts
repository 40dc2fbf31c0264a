import { z } from "zod";
import type { ImagePart } from "../../test-case/image.ts";
import type { TestCaseField } from "../../test-case/llm-test-case.ts";
import { BaseMetric } from "../base-metric.ts";
import type { MetricContext, ReasonPlan, ScoredSteps } from "../metric-context.ts";
import { itemText } from "./answer-text.ts";
import { judgeReason, reasonOrItem } from "./verdicts.ts";
import { askYesNoVerdicts, type YesNoVerdict } from "./yes-no-verdicts.ts";

/**
 * What a metric of the extract → yes/no verdict → reason shape declares (Toxicity, Bias, PII
 * Leakage, Role Violation, Non-Advice, Misuse); the steps themselves are shared.
 */
export interface ItemVerdictDeclaration<Template> {
  /** Step 1's template function, e.g. `"extractPii"`. */
  extractStep: string;
  /**
   * What step 1's JSON holds (`{ [key]: string[] }`), which is also the metric's getter of the
   * items and their key in `details`: `"opinions"`, `"extractedPii"`.
   */
  key: string;
  /** The items' label in the verbose logs and the dashboard, one word: `"Opinions"`. */
  label: string;
  /** One item, in the message of a wrong verdict count: `"opinion"`. */
  itemName: string;
  /** Step 1's prompt for the rendered output. */
  extractPrompt: (template: Template, actualOutput: string, multimodal: boolean) => string;
  /** Step 2's prompt: one verdict per item, in order. */
  verdictsPrompt: (template: Template, items: string[]) => string;
  /** Step 3's prompt: the flagged items' reasons and the final score. */
  reasonPrompt: (template: Template, flagged: string[], score: number) => string;
  /** The score of `flagged` "yes" verdicts out of `verdicts` (0 verdicts: nothing extracted). */
  score: (flagged: number, verdicts: number) => number;
  /** Why the score is what it is when no item is flagged, out of `items` extracted. */
  unflaggedBecause: (items: number) => string;
}

// One schema per key, built once: a fresh schema per call would miss the JSON Schema cache.
const itemSchemas = new Map<string, z.ZodType<Record<string, string[]>>>();

/** The schema of step 1: `{ [key]: string[] }`, each item real text. */
export function itemsSchema(key: string): z.ZodType<Record<string, string[]>> {
  let schema = itemSchemas.get(key);
  if (schema === undefined) {
    schema = z.object({ [key]: z.array(itemText) }) as unknown as z.ZodType<
      Record<string, string[]>
    >;
    itemSchemas.set(key, schema);
  }
  return schema;
}

/**
 * The shared pipeline of the metrics that extract items from `actualOutput`, judge each one
 * yes/no ("yes" flags it), score the verdicts by the metric's formula and explain: step 2 is
 * skipped when step 1 finds nothing, and step 3 is asked only when some item is flagged (verdict
 * writes the reason itself otherwise). A metric declares its {@link ItemVerdictDeclaration}.
 */
export abstract class ItemVerdictMetric<Template extends object> extends BaseMetric<Template> {
  readonly requiredFields: readonly TestCaseField[] = ["input", "actualOutput"];
  readonly judgedFields: readonly TestCaseField[] = ["actualOutput"];
  protected abstract readonly declaration: ItemVerdictDeclaration<Template>;

  /** The items the last `measure()` extracted, in order; `null` before it or when it failed. */
  protected extractedItems(): readonly string[] | null {
    return (this.lastDetails[this.declaration.key] as readonly string[] | undefined) ?? null;
  }

  protected async scoreTestCase(context: MetricContext<Template>): Promise<ScoredSteps> {
    const { template, multimodal } = context;
    const declaration = this.declaration;
    const images: ImagePart[] = [];
    const actualOutput = context.render("actualOutput", images);
    const extracted = await context.ask({
      step: declaration.extractStep,
      prompt: declaration.extractPrompt(template, actualOutput, multimodal),
      images,
      schema: itemsSchema(declaration.key),
    });
    const items = extracted[declaration.key] ?? [];

    let verdicts: YesNoVerdict[] = [];
    if (items.length > 0) {
      verdicts = await askYesNoVerdicts(context, {
        step: "generateVerdicts",
        // Verdicts are judged on the extracted items alone; images were described there.
        prompt: declaration.verdictsPrompt(template, items),
        images: [],
        count: items.length,
        itemName: declaration.itemName,
        clean: "no",
      });
    }

    const flagged = verdicts.flatMap((verdict, index) =>
      verdict.verdict === "yes" ? [reasonOrItem(verdict, items[index])] : [],
    );
    return {
      score: declaration.score(flagged.length, verdicts.length),
      steps: [
        { label: declaration.label, value: items },
        // "yes" flags an item; said where the direction does not (PII Leakage, Role Violation
        // and Non-Advice are higher-is-better).
        {
          label: "Verdicts",
          value: verdicts,
          ...(this.lowerIsBetter ? {} : { flaggedVerdict: "yes" }),
        },
      ],
      details: { [declaration.key]: items, verdicts },
      planReason: (finalScore): ReasonPlan =>
        flagged.length === 0
          ? { because: declaration.unflaggedBecause(items.length) }
          : judgeReason(declaration.reasonPrompt(template, flagged, finalScore), []),
    };
  }
}

/** `#flagged / #verdicts`, 0 when there are none: lower is better (Toxicity, Bias, Misuse). */
export function flaggedShare(flagged: number, verdicts: number): number {
  return verdicts === 0 ? 0 : flagged / verdicts;
}

/** `#unflagged / #verdicts`, 1 when there are none: higher is better (PII Leakage, Non-Advice). */
export function unflaggedShare(flagged: number, verdicts: number): number {
  return verdicts === 0 ? 1 : (verdicts - flagged) / verdicts;
}
