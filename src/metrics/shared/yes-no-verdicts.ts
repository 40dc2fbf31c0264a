import type { ImagePart } from "../../test-case/image.ts";
import type { MetricContext } from "../base-metric.ts";
import { normalizeVerdictAnswer, type Verdict, verdictsSchema } from "./verdicts.ts";

/** The verdicts of the RAG steps: "yes" (relevant, useful, attributable, agrees) or "no". */
export const YES_NO = ["yes", "no"] as const;

/** One yes/no verdict, with the judge's reason when it gave one. */
export type YesNoVerdict = Verdict<"yes" | "no">;

/**
 * Asks a verdict step that judges each of `count` given items yes or no, "yes" being the
 * verdict that finds nothing wrong: exactly one verdict per item, in order (a wrong count or
 * an off-enum verdict is re-asked once, then a `JudgeOutputError`).
 */
export async function askYesNoVerdicts(
  context: Pick<MetricContext<unknown>, "ask">,
  step: { step: string; prompt: string; images: ImagePart[]; count: number; itemName: string },
): Promise<YesNoVerdict[]> {
  const { verdicts } = await context.ask({
    step: step.step,
    prompt: step.prompt,
    images: step.images,
    schema: verdictsSchema({
      allowed: YES_NO,
      count: step.count,
      itemName: step.itemName,
      clean: "yes",
    }),
    prepare: (value) => normalizeVerdictAnswer(value, YES_NO),
  });
  return verdicts;
}

/**
 * The reasons of the verdicts that are `verdict`, each named by its item's position
 * (`Sentence 2: …`); a verdict given without a reason quotes its item instead.
 */
export function numberedReasons(options: {
  verdicts: readonly YesNoVerdict[];
  items: readonly string[];
  verdict: "yes" | "no";
  /** What an item is, capitalised: "Sentence", "Context", "Node". */
  noun: string;
}): string[] {
  const { verdicts, items, verdict, noun } = options;
  return verdicts.flatMap((item, index) =>
    item.verdict === verdict
      ? [`${noun} ${index + 1}: ${item.reason?.trim() || `"${items[index] ?? ""}"`}`]
      : [],
  );
}
