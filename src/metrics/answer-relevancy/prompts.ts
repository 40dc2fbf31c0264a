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
      "A statement is a claim, piece of information, suggestion or answer. Each sentence is one statement, even when it lists several features, facts or options: do not split a sentence into its parts. Keep each statement self-contained, in the text's own words where possible, and in the order they appear. Keep a fragment or a single word as a statement only when it stands on its own rather than inside a sentence. If the text makes no statement at all, return an empty list.",
      [
        "Example",
        'Text: "The Aria 2 headphones have noise cancelling, a 30-hour battery and foldable hinges. They cost $199. Thanks for asking!"',
        'Answer: {"statements": ["The Aria 2 headphones have noise cancelling, a 30-hour battery and foldable hinges.", "The Aria 2 headphones cost $199.", "Thanks for asking!"]}',
      ].join("\n"),
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
