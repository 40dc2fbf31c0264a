import {
  DATA_NOTICE,
  exactCountRule,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
} from "./prompt-text.ts";

/** Arguments of every claim-verdict prompt (Faithfulness, Summarization's alignment step). */
export interface GenerateClaimVerdictsArgs {
  /** The claims to judge, in order. */
  claims: string[];
  /** The facts taken from the source (the `generateTruths` step's answer). */
  truths: string[];
  multimodal: boolean;
}

/** The verdicts a claim can get: backed, contradicted, or neither. */
export const CLAIM_VERDICTS = ["yes", "no", "idk"] as const;

/**
 * The claim-verdict prompt shared by Faithfulness (`generateVerdicts`) and Summarization
 * (`generateAlignmentVerdicts`), which ask the same question of the same claims and facts:
 * byte-identical for the same claims and truths, so running both asks once. Each metric
 * counts the verdicts its own way (Faithfulness counts `idk` as faithful, Summarization's
 * alignment does not).
 */
export function generateClaimVerdicts(args: GenerateClaimVerdictsArgs): string {
  const count = args.claims.length;
  return joinSections(
    "You check each claim against a list of facts taken from the source the claims should be faithful to.",
    [
      'For each claim answer "yes", "no" or "idk":',
      '- "yes": the facts back the claim, or agree with it;',
      '- "no": the facts directly contradict the claim: both cannot be true at once;',
      '- "idk": the facts neither back nor contradict it: they do not mention it, or the claim is wrong by what you know but nothing in the facts contradicts it.',
      'Judge only against the facts given, never against your own knowledge. Hedged or speculative wording ("may", "possibly", "might have helped") is no contradiction.',
      'Give a reason for every "no" and "idk" (for "no", correct the claim from the facts); for "yes" the reason is null.',
    ].join("\n"),
    [
      "Example",
      'Facts: ["The museum opened in 1994.", "The museum is in Porto.", "The museum holds about 3,000 paintings."]',
      'Claims: ["The museum in Porto opened in 1994, which may have helped tourism.", "The museum opened in 1996.", "The museum café opens on Sundays.", "Porto is the capital of Portugal."]',
      'Answer: {"verdicts": [{"verdict": "yes", "reason": null}, {"verdict": "no", "reason": "The facts say the museum opened in 1994, not 1996."}, {"verdict": "idk", "reason": "The facts do not mention a café."}, {"verdict": "idk", "reason": "Wrong, but the facts say nothing about the capital, so they do not contradict it."}]}',
    ].join("\n"),
    exactCountRule(count, "claim"),
    args.multimodal && MULTIMODAL_RULES,
    DATA_NOTICE,
    quoteList("facts", args.truths),
    quoteList("claims", args.claims),
    'Answer with only a JSON object: {"verdicts": [{"verdict": "yes", "no" or "idk", "reason": "…" or null}, …]}',
  );
}
