import {
  DATA_NOTICE,
  formatScore,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  quoteText,
  yesNoVerdictsPrompt,
} from "../shared/prompt-text.ts";

/** Arguments of the Contextual Recall verdict prompt. */
export interface ContextualRecallVerdictsArgs {
  /** The sentences of `expectedOutput`, in order (images as `[image N]`). */
  sentences: string[];
  /** The retrieved nodes, in rank order. */
  retrievalContext: string[];
  multimodal: boolean;
}

/** Arguments of the Contextual Recall reason prompt. */
export interface ContextualRecallReasonArgs {
  /** The whole expected output, rendered as text. */
  expectedOutput: string;
  /** Why each attributable sentence can be attributed (`Sentence 1: …`). */
  supportiveReasons: string[];
  /** Why each other sentence cannot (`Sentence 2: …`). */
  unsupportiveReasons: string[];
  /** The final score (0–1, higher is better). */
  score: number;
  multimodal: boolean;
}

/**
 * The built-in Contextual Recall prompts. Extend it and override any static method, or pass
 * an object with the methods to replace, as `evaluationTemplate`.
 * @example
 * class MyTemplate extends ContextualRecallTemplate {
 *   static override generateVerdicts(args: ContextualRecallVerdictsArgs) { return `…`; }
 * }
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class ContextualRecallTemplate {
  /** Step 1: one `{ "verdict": "yes" | "no", "reason" }` per sentence, in order. */
  static generateVerdicts(args: ContextualRecallVerdictsArgs): string {
    return yesNoVerdictsPrompt({
      task: "You judge, for each sentence of an expected (ideal) answer, whether what it says can be attributed to the context a retriever fetched, so that the information the retriever missed can be found.",
      rubric: [
        'For each sentence answer "yes" or "no":',
        '- "yes": what the sentence says can be found in, or attributed to, some part of the retrieval context;',
        '- "no": nothing in the retrieval context supports it.',
        'Give a reason for every verdict. For "yes", name the node or nodes it comes from by their position (the 1st node, the 2nd node…) and quote the supporting part briefly, cutting a long quote short with "…"; for "no", say what is missing.',
      ].join("\n"),
      example: [
        "Example",
        'Nodes: ["The Eiffel Tower in Paris was finished in 1889 for the World\'s Fair.", "It is 330 metres tall."]',
        'Sentences: ["The Eiffel Tower was finished in 1889.", "It was designed by Gustave Eiffel\'s company.", "It is 330 metres tall."]',
        'Answer: {"verdicts": [{"verdict": "yes", "reason": "The 1st node says it \'was finished in 1889…\'."}, {"verdict": "no", "reason": "No node says who designed the tower."}, {"verdict": "yes", "reason": "The 2nd node says \'It is 330 metres tall.\'"}]}',
      ].join("\n"),
      items: args.sentences,
      itemName: "sentence",
      multimodal: args.multimodal,
      data: [quoteList("nodes", args.retrievalContext), quoteList("sentences", args.sentences)],
      reasonEach: true,
    });
  }

  /** Step 2: `{ "reason": string }`, only when some sentence cannot be attributed. */
  static generateReason(args: ContextualRecallReasonArgs): string {
    const score = formatScore(args.score);
    return joinSections(
      `You explain a contextual recall score of ${score}. The score runs from 0 to 1 and is the share of the sentences of an expected (ideal) answer that can be attributed to the context a retriever fetched: higher is better.`,
      "Below are the expected output, why some of its sentences can be attributed to nodes of the retrieval context, and why the others cannot.",
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("expected_output", args.expectedOutput),
      quoteList("attributed", args.supportiveReasons),
      quoteList("not_attributed", args.unsupportiveReasons),
      `Write one to three sentences that start with "The score is ${score} because" and say which sentences of the expected output the retrieval context misses, by their number, and which nodes of the retrieval context the others come from.`,
      'Answer with only a JSON object: {"reason": "…"}',
    );
  }
}
