import {
  DATA_NOTICE,
  exactCountRule,
  formatScore,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  quoteText,
} from "../shared/prompt-text.ts";

/** Arguments of the statement prompt. */
export interface AnswerRelevancyStatementsArgs {
  actualOutput: string;
  multimodal: boolean;
}

/** Arguments of the Answer Relevancy verdict prompt. */
export interface AnswerRelevancyVerdictsArgs {
  input: string;
  statements: string[];
  multimodal: boolean;
}

/** Arguments of the Answer Relevancy reason prompt. */
export interface AnswerRelevancyReasonArgs {
  /** Why each irrelevant statement was judged irrelevant. */
  irrelevantStatements: string[];
  input: string;
  /** The final score (0–1, higher is better). */
  score: number;
  multimodal: boolean;
}

// How a text becomes statements, with the deepeval 4.1.10 line each rule follows
// (deepeval/metrics/answer_relevancy/templates/generate_statements.txt):
// - a sentence joining separate claims gives one statement per claim: the worked example's four
//   sentences give five statements, its last sentence (a warranty and round-the-clock support)
//   two (:5, :10-16);
// - what belongs to one claim stays together: the battery and its hours, and the two security
//   features, each stay one statement (:5, :12-13);
// - fragments and single words are statements only outside a coherent statement (:1).
const STATEMENT_RULES = [
  "A statement is one claim, piece of information, suggestion or answer. Most sentences make one statement, but a sentence that joins separate claims, each of which could be true or relevant without the other, makes one statement per claim: split it, repeating the subject so that each statement stands on its own. Keep together what belongs to one claim, such as a feature and its details, or the items of one group.",
  "Keep each statement self-contained, in the text's own words where possible, and in the order they appear. Keep a fragment or a single word as a statement only when it stands on its own rather than inside a sentence. If the text makes no statement at all, return an empty list.",
].join(" ");

const STATEMENT_EXAMPLE = [
  "Example",
  'Text: "The Aria 2 headphones have active noise cancelling for quiet listening. Their battery lasts 30 hours on a single charge. For comfort, they have memory-foam cushions and a padded headband. Every order also includes free shipping and a two-year warranty."',
  'Answer: {"statements": ["The Aria 2 headphones have active noise cancelling for quiet listening.", "The Aria 2 headphones\' battery lasts 30 hours on a single charge.", "For comfort, the Aria 2 headphones have memory-foam cushions and a padded headband.", "Every order includes free shipping.", "Every order includes a two-year warranty."]}',
  "(Four sentences, five statements: the last sentence joins two separate offers, so it gives two; the comfort sentence names the parts of one feature, so it stays one.)",
].join("\n");

/**
 * The built-in Answer Relevancy prompts. Extend it and override any static method, or pass
 * an object with the methods to replace, as `evaluationTemplate`.
 * @example
 * class MyTemplate extends AnswerRelevancyTemplate {
 *   static override generateStatements(args: AnswerRelevancyStatementsArgs) { return `…`; }
 * }
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class AnswerRelevancyTemplate {
  /** Step 1: `{ "statements": string[] }`. */
  static generateStatements(args: AnswerRelevancyStatementsArgs): string {
    return joinSections(
      "You break a text written by an AI system into the separate statements it makes, so that each can be judged on its own later.",
      STATEMENT_RULES,
      STATEMENT_EXAMPLE,
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("text", args.actualOutput),
      'Answer with only a JSON object: {"statements": ["…", …]}',
    );
  }

  /** Step 2: one `{ "verdict": "yes" | "no" | "idk", "reason" }` per statement, in order. */
  static generateVerdicts(args: AnswerRelevancyVerdictsArgs): string {
    const count = args.statements.length;
    return joinSections(
      "You judge whether each statement of an answer is relevant to the question (input) it answers.",
      [
        'For each statement answer "yes", "no" or "idk":',
        '- "yes": the statement helps answer the input;',
        '- "no": the statement is irrelevant to the input;',
        '- "idk": it is ambiguous, or it is supporting information that does not answer the input itself but could help.',
        'Give a reason for every "no" and "idk" (say why the statement does not address the input); for "yes" the reason is null.',
      ].join("\n"),
      [
        "Example",
        'Input: "How do I reset my router?"',
        'Statements: ["Hold the reset button for ten seconds.", "Our routers come in three colours.", "A reset erases your Wi-Fi password, so note it first."]',
        'Answer: {"verdicts": [{"verdict": "yes", "reason": null}, {"verdict": "no", "reason": "The colours do not help reset the router."}, {"verdict": "idk", "reason": "Useful background, but not a step of the reset itself."}]}',
      ].join("\n"),
      exactCountRule(count, "statement"),
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("input", args.input),
      quoteList("statements", args.statements),
      'Answer with only a JSON object: {"verdicts": [{"verdict": "yes", "no" or "idk", "reason": "…" or null}, …]}',
    );
  }

  /** Step 3: `{ "reason": string }`, only when at least one statement counts as irrelevant. */
  static generateReason(args: AnswerRelevancyReasonArgs): string {
    const score = formatScore(args.score);
    return joinSections(
      `You explain an answer relevancy score of ${score} given to an AI system's answer. The score runs from 0 to 1 and is the share of the answer's statements that are relevant to the input: higher is better.`,
      "Below are the input, and the reasons given for the statements that count as irrelevant.",
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("input", args.input),
      quoteList("irrelevant_statement_reasons", args.irrelevantStatements),
      `Write one to three sentences that start with "The score is ${score} because" and say why the score is not higher and why it is what it is. Mention only problems that appear in the reasons.`,
      'Answer with only a JSON object: {"reason": "…"}',
    );
  }
}
