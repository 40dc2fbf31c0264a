import {
  DATA_NOTICE,
  formatScore,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  quoteText,
} from "../shared/prompt-text.ts";

/** Arguments of the Contextual Relevancy verdict prompt: one node at a time. */
export interface ContextualRelevancyVerdictsArgs {
  input: string;
  /** One node of `retrievalContext`. */
  context: string;
  multimodal: boolean;
}

/** Arguments of the Contextual Relevancy reason prompt. */
export interface ContextualRelevancyReasonArgs {
  input: string;
  /** Why each irrelevant statement is irrelevant (the statement, quoted, when no reason was given). */
  irrelevantStatements: string[];
  /** The statements judged relevant. */
  relevantStatements: string[];
  /** The final score (0–1, higher is better). */
  score: number;
  multimodal: boolean;
}

/** The statement and reason of the verdict a node without any statement gets. */
export const EMPTY_NODE_REASON = "The node holds no statement.";

/**
 * The built-in Contextual Relevancy prompts. Extend it and override any static method, or
 * pass an object with the methods to replace, as `evaluationTemplate`.
 * @example
 * class MyTemplate extends ContextualRelevancyTemplate {
 *   static override generateVerdicts(args: ContextualRelevancyVerdictsArgs) { return `…`; }
 * }
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class ContextualRelevancyTemplate {
  /**
   * Step 1, once per node: `{ "verdicts": [{ "statement", "verdict": "yes" | "no", "reason" }] }`,
   * one per statement the node makes.
   */
  static generateVerdicts(args: ContextualRelevancyVerdictsArgs): string {
    return joinSections(
      "You judge how much of one node of the context a retriever fetched for an input is relevant to that input, statement by statement, so that the noise in what was retrieved can be measured.",
      [
        "First break the node into the statements it makes: each sentence, or each self-contained piece of information, is one statement, in the node's own words where possible and in order. Then judge each statement:",
        '- "yes": the statement is relevant to the input: it helps answer it, or is about what the input asks;',
        '- "no": the statement is irrelevant to the input.',
        `Give a reason for every "no", quoting the irrelevant part of the statement; for "yes" the reason is null. If the node holds no statement at all (no real content), return one verdict "no" with the node's text as the statement and the reason "${EMPTY_NODE_REASON}"`,
      ].join("\n"),
      [
        "Example",
        'Input: "What did Marie Curie achieve?"',
        'Node: "Marie Curie won two Nobel Prizes, in physics and in chemistry. She discovered polonium and radium. Her lab had a small garden."',
        'Answer: {"verdicts": [{"statement": "Marie Curie won two Nobel Prizes, in physics and in chemistry.", "verdict": "yes", "reason": null}, {"statement": "She discovered polonium and radium.", "verdict": "yes", "reason": null}, {"statement": "Her lab had a small garden.", "verdict": "no", "reason": "\'Her lab had a small garden\' says nothing about what Marie Curie achieved."}]}',
      ].join("\n"),
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("input", args.input),
      quoteText("node", args.context),
      'Answer with only a JSON object: {"verdicts": [{"statement": "…", "verdict": "yes" or "no", "reason": "…" or null}, …]}',
    );
  }

  /** Step 2: `{ "reason": string }`, only when some statement is irrelevant. */
  static generateReason(args: ContextualRelevancyReasonArgs): string {
    const score = formatScore(args.score);
    return joinSections(
      `You explain a contextual relevancy score of ${score} given to the context a retriever fetched for an input. The score runs from 0 to 1 and is the share of the statements in the retrieved context that are relevant to the input: higher is better.`,
      "Below are the input, why some statements of the retrieval context are irrelevant to it, and the statements that are relevant.",
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("input", args.input),
      quoteList("irrelevant_statement_reasons", args.irrelevantStatements),
      quoteList("relevant_statements", args.relevantStatements),
      `Write one to three sentences that start with "The score is ${score} because" and say what in the retrieval context is irrelevant to the input and what is relevant, quoting the reasons and statements above.`,
      'Answer with only a JSON object: {"reason": "…"}',
    );
  }
}
