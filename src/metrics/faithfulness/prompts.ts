import { DATA_NOTICE, formatScore, joinSections, quoteList } from "../shared/prompt-text.ts";
import {
  type GenerateClaimsArgs,
  type GenerateClaimVerdictsArgs,
  type GenerateTruthsArgs,
  generateClaims,
  generateClaimVerdicts,
  generateTruths,
} from "../shared/truths-and-claims.ts";

/** Arguments of the Faithfulness reason prompt. */
export interface FaithfulnessReasonArgs {
  /**
   * Why each claim that counts against the output does: contradictions of the retrieval
   * context, and, with `penalizeAmbiguousClaims`, claims it does not back, marked `(Ambiguous)`.
   */
  contradictions: string[];
  /** The final score (0–1, higher is better). */
  score: number;
  multimodal: boolean;
}

/**
 * The built-in Faithfulness prompts. Extend it and override any static method, or pass an
 * object with the methods to replace, as `evaluationTemplate`. The truth, claim and verdict
 * prompts are shared with Summarization (`metrics/shared/`), so that both metrics on one test
 * case ask the same question once.
 * @example
 * class MyTemplate extends FaithfulnessTemplate {
 *   static override generateClaims(args: GenerateClaimsArgs) { return `…`; }
 * }
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class FaithfulnessTemplate {
  /** Step 1a: the facts of `retrievalContext`, `{ "truths": string[] }`. */
  static generateTruths(args: GenerateTruthsArgs): string {
    return generateTruths(args);
  }

  /** Step 1b: the claims of `actualOutput`, `{ "claims": string[] }`. */
  static generateClaims(args: GenerateClaimsArgs): string {
    return generateClaims(args);
  }

  /** Step 2: one `{ "verdict": "yes" | "no" | "idk", "reason" }` per claim, in order. */
  static generateVerdicts(args: GenerateClaimVerdictsArgs): string {
    return generateClaimVerdicts(args);
  }

  /** Step 3: `{ "reason": string }`, only when some claim counts against the output. */
  static generateReason(args: FaithfulnessReasonArgs): string {
    const score = formatScore(args.score);
    return joinSections(
      `You explain a faithfulness score of ${score} given to an AI system's output. The score runs from 0 to 1 and is the share of the output's claims that its retrieval context does not contradict: higher is better.`,
      'Below are the reasons given for the claims that count against the output: claims the retrieval context contradicts, and claims it does not back at all, marked "(Ambiguous)", when those count too. The problems are in the output, not in the retrieval context.',
      DATA_NOTICE,
      quoteList("contradictions", args.contradictions),
      `Write one to three sentences that start with "The score is ${score} because" and say what the output gets wrong about its sources. Mention only problems that appear in the reasons.`,
      'Answer with only a JSON object: {"reason": "…"}',
    );
  }
}
