import {
  DATA_NOTICE,
  exactCountRule,
  formatScore,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  quoteText,
} from "../shared/prompt-text.ts";
import {
  type GenerateClaimsArgs,
  type GenerateClaimVerdictsArgs,
  type GenerateTruthsArgs,
  generateClaims,
  generateClaimVerdicts,
  generateTruths,
} from "../shared/truths-and-claims.ts";

/** Arguments of the assessment-question prompt. */
export interface SummarizationQuestionsArgs {
  /** The original text (`input`). */
  text: string;
  /** How many questions to write (the `n` option). */
  n: number;
  multimodal: boolean;
}

/** Arguments of the answer prompt, asked once of the original text and once of the summary. */
export interface SummarizationAnswersArgs {
  /** The assessment questions, in order. */
  questions: string[];
  /** The original text (`input`) or the summary (`actualOutput`). */
  text: string;
  multimodal: boolean;
}

/** Arguments of the Summarization reason prompt. */
export interface SummarizationReasonArgs {
  /** Why each summary claim the original text contradicts does. */
  contradictions: string[];
  /** Why each summary claim the original text does not back (extra information) is so. */
  redundancies: string[];
  /** The assessment questions the original text answers and the summary does not. */
  questions: string[];
  /** The final score (0–1, higher is better). */
  score: number;
  /** The two scores the final one is the lower of. */
  scoreBreakdown: { alignment: number; coverage: number };
  multimodal: boolean;
}

/**
 * The built-in Summarization prompts. Extend it and override any static method, or pass an
 * object with the methods to replace, as `evaluationTemplate`. The truth, claim and alignment
 * prompts are Faithfulness's too (`metrics/shared/`).
 * @example
 * class MyTemplate extends SummarizationTemplate {
 *   static override generateQuestions(args: SummarizationQuestionsArgs) { return `…`; }
 * }
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class SummarizationTemplate {
  /** Alignment, step 1a: the facts of the original text (as one document), `{ "truths": string[] }`. */
  static generateTruths(args: GenerateTruthsArgs): string {
    return generateTruths(args);
  }

  /** Alignment, step 1b: the claims of the summary, `{ "claims": string[] }`. */
  static generateClaims(args: GenerateClaimsArgs): string {
    return generateClaims(args);
  }

  /** Alignment, step 2: one `{ "verdict": "yes" | "no" | "idk", "reason" }` per summary claim. */
  static generateAlignmentVerdicts(args: GenerateClaimVerdictsArgs): string {
    return generateClaimVerdicts(args);
  }

  /** Coverage, step 1 (without `assessmentQuestions`): `{ "questions": string[] }`, `n` of them. */
  static generateQuestions(args: SummarizationQuestionsArgs): string {
    const { n } = args;
    return joinSections(
      "You write closed yes/no questions about a text, so that a summary of it can be checked later for whether it kept the text's key points.",
      [
        `Write exactly ${n} question${n === 1 ? "" : "s"}. The text must answer each one, and its answer must be "yes".`,
        "Ask about the points a good summary has to keep, the most important first, one point per question. Make each question self-contained (name who or what it is about), and answerable with yes or no alone.",
      ].join("\n"),
      [
        "Example",
        'Text: "The council approved a new cycle lane on Main Street. Work starts in May and costs 2 million euros, paid by a national grant."',
        'Answer: {"questions": ["Did the council approve a new cycle lane on Main Street?", "Does the work on the cycle lane start in May?", "Is the cycle lane paid for by a national grant?"]}',
        "(Three questions were asked for here.)",
      ].join("\n"),
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("text", args.text),
      `Answer with only a JSON object holding exactly ${n} question${n === 1 ? "" : "s"}: {"questions": ["…", …]}`,
    );
  }

  /**
   * Coverage, step 2, asked of the original text and of the summary: one `"yes" | "no"` per
   * question, whether the text holds what it takes to answer it.
   */
  static generateAnswers(args: SummarizationAnswersArgs): string {
    const count = args.questions.length;
    return joinSections(
      "You check whether a text holds the information needed to answer each of a list of yes/no questions.",
      [
        'For each question answer "yes" when the text contains enough information to answer it, and "no" when it does not (the text does not mention it, or says too little to decide).',
        "Judge from the text alone, never from your own knowledge.",
      ].join("\n"),
      [
        "Example",
        'Text: "The bakery on Rua Nova opens at 7am and sells sourdough."',
        'Questions: ["Does the bakery sell sourdough?", "Does the bakery open before 8am?", "Does the bakery deliver?"]',
        'Answer: {"answers": ["yes", "yes", "no"]}',
      ].join("\n"),
      exactCountRule(count, "question", "answer"),
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("text", args.text),
      quoteList("questions", args.questions),
      'Answer with only a JSON object: {"answers": ["yes" or "no", …]}',
    );
  }

  /** Step 3: `{ "reason": string }`, only when something counts against the summary. */
  static generateReason(args: SummarizationReasonArgs): string {
    const score = formatScore(args.score);
    const { alignment, coverage } = args.scoreBreakdown;
    return joinSections(
      `You explain a summarization score of ${score} given to a summary written by an AI system. The score runs from 0 to 1 and is the lower of two scores: alignment (${formatScore(alignment)}), the share of the summary's claims that the original text backs, and coverage (${formatScore(coverage)}), the share of the questions the original text answers that the summary answers too. Higher is better.`,
      "Below are the problems found: summary claims that contradict the original text, summary claims that add information the original text does not contain, and questions the original text answers but the summary does not. A list may be empty.",
      DATA_NOTICE,
      quoteList("contradictions", args.contradictions),
      quoteList("extra_information", args.redundancies),
      quoteList("unanswered_questions", args.questions),
      `Write one to three sentences that start with "The score is ${score} because" and say why the summary scores no higher. Mention only problems that appear in the lists.`,
      'Answer with only a JSON object: {"reason": "…"}',
    );
  }
}
