import {
  DATA_NOTICE,
  formatScore,
  joinSections,
  quoteList,
  quoteText,
  yesNoVerdictsPrompt,
} from "../shared/prompt-text.ts";

/** Arguments of the Hallucination verdict prompt. */
export interface HallucinationVerdictsArgs {
  /** The judged output, rendered as text (images as `[image N]`). */
  actualOutput: string;
  /** The test case's `context`: passages taken as true, in order. */
  contexts: string[];
  multimodal: boolean;
}

/** Arguments of the Hallucination reason prompt. */
export interface HallucinationReasonArgs {
  /** Why the output agrees with each context it does not contradict (`Context 1: …`). */
  factualAlignments: string[];
  /** Why the output contradicts each contradicted context (`Context 2: …`). */
  contradictions: string[];
  /** The final score (0–1, lower is better). */
  score: number;
}

/**
 * The built-in Hallucination prompts. Extend it and override any static method, or pass an
 * object with the methods to replace, as `evaluationTemplate`.
 * @example
 * class MyTemplate extends HallucinationTemplate {
 *   static override generateVerdicts(args: HallucinationVerdictsArgs) { return `…`; }
 * }
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class HallucinationTemplate {
  /** Step 1: one `{ "verdict": "yes" | "no", "reason" }` per context, in order. */
  static generateVerdicts(args: HallucinationVerdictsArgs): string {
    return yesNoVerdictsPrompt({
      task: "You check an AI system's output against each of several context passages that are known to be true, to find the passages the output contradicts.",
      rubric: [
        'For each context answer "yes" or "no":',
        '- "yes": the output agrees with the context, or says nothing that goes against it;',
        '- "no": the output contradicts the context.',
        'Take each context as it is written and do not bring in anything you know beyond it. An output that leaves out details of a context, or says less than it, does not contradict it: answer "no" only for a real contradiction. Give a reason for every verdict; for "no", say what the context states instead.',
      ].join("\n"),
      example: [
        "Example",
        'Contexts: ["The Great Wall of China is over 21,000 km long.", "Its oldest parts date from the 7th century BC.", "It was built to protect against raids from the north."]',
        'Output: "The Great Wall, begun in the 7th century BC, is about 5,000 km long."',
        'Answer: {"verdicts": [{"verdict": "no", "reason": "The context gives over 21,000 km, not about 5,000 km."}, {"verdict": "yes", "reason": "The output agrees that its oldest parts date from the 7th century BC."}, {"verdict": "yes", "reason": "The output does not say why the wall was built, which is no contradiction."}]}',
      ].join("\n"),
      items: args.contexts,
      itemName: "context",
      multimodal: args.multimodal,
      data: [quoteList("contexts", args.contexts), quoteText("output", args.actualOutput)],
      reasonEach: true,
    });
  }

  /** Step 2: `{ "reason": string }`, only when the output contradicts some context. */
  static generateReason(args: HallucinationReasonArgs): string {
    const score = formatScore(args.score);
    return joinSections(
      `You explain a hallucination score of ${score} given to an AI system's output. The score runs from 0 to 1 and is the share of the context passages, known to be true, that the output contradicts: lower is better.`,
      "Below are why the output agrees with some contexts, and why it contradicts the others.",
      DATA_NOTICE,
      quoteList("agreements", args.factualAlignments),
      quoteList("contradictions", args.contradictions),
      `Write one to three sentences that start with "The score is ${score} because" and say what the output gets wrong, using the contradictions above.`,
      'Answer with only a JSON object: {"reason": "…"}',
    );
  }
}
