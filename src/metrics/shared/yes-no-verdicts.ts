import type { ImagePart } from "../../test-case/image.ts";
import type { MetricContext } from "../metric-context.ts";
import { normalizeVerdictAnswer, reasonOrItem, type Verdict, verdictsSchema } from "./verdicts.ts";

/**
 * The verdicts of a yes/no step. Which one counts against the output is the metric's: "yes"
 * flags an item of the safety metrics, Toxicity and Bias (it leaks, it is toxic); "no" one of
 * the RAG metrics (not relevant, not useful, not attributable, contradicted).
 */
export const YES_NO = ["yes", "no"] as const;

/** One yes/no verdict, with the judge's reason when it gave one. */
export type YesNoVerdict = Verdict<"yes" | "no">;

/**
 * Asks a verdict step that judges each of `count` given items yes or no: exactly one verdict
 * per item, in order (a wrong count or an off-enum verdict is re-asked once, then a
 * `JudgeOutputError`). `clean` is the verdict that finds nothing wrong, which the built-in
 * fake judge answers.
 */
export async function askYesNoVerdicts(
  context: Pick<MetricContext<unknown>, "ask">,
  step: {
    step: string;
    prompt: string;
    images: ImagePart[];
    count: number;
    itemName: string;
    clean: "yes" | "no";
  },
): Promise<YesNoVerdict[]> {
  const { verdicts } = await context.ask({
    step: step.step,
    prompt: step.prompt,
    images: step.images,
    schema: verdictsSchema({
      allowed: YES_NO,
      count: step.count,
      itemName: step.itemName,
      // "no" is what the fake judge answers unless told otherwise.
      ...(step.clean === "yes" ? { clean: "yes" } : {}),
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
    item.verdict === verdict ? [`${noun} ${index + 1}: ${reasonOrItem(item, items[index])}`] : [],
  );
}
