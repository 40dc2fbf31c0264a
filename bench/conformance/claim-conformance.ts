// How a Faithfulness or Summarization example counts as agreeing with deepeval: its claims'
// verdicts against the source (faithful / contradicted / not in context; aligned /
// contradicted / extra information), or its assessment questions' answers (covered / not
// covered). Kept apart from the opinion and statement classes of run-conformance.ts.

/** The classes of the claim-checking metrics. */
export const CLAIM_CLASSES = [
  "faithful",
  "aligned",
  "contradicted",
  "not in context",
  "extra information",
  "covered",
  "not covered",
] as const;
export type ClaimClass = (typeof CLAIM_CLASSES)[number];

/** One assessment question's answers, from the original text and from the summary. */
export interface CoverageAnswers {
  original: string;
  summary: string;
}

/** True for the classes this module decides. */
export function isClaimClass(expected: string): expected is ClaimClass {
  return (CLAIM_CLASSES as readonly string[]).includes(expected);
}

/**
 * Whether the claims' verdicts (or the coverage answers) match deepeval's classification:
 * - faithful: some claim, none contradicted ("no"); `idk` is faithful, as deepeval scores it;
 * - aligned: every claim backed ("yes"), since Summarization counts `idk` against alignment;
 * - contradicted: some claim "no";
 * - not in context / extra information: some claim "idk", none "no";
 * - covered: every question the original text answers, the summary answers too (one at least);
 * - not covered: some question the original text answers, the summary does not.
 */
export function agreesWithClaims(
  expected: ClaimClass,
  verdicts: readonly string[],
  coverage: readonly CoverageAnswers[],
): boolean {
  const counted = coverage.filter((answers) => answers.original === "yes");
  switch (expected) {
    case "faithful":
      return verdicts.length > 0 && !verdicts.includes("no");
    case "aligned":
      return verdicts.length > 0 && verdicts.every((verdict) => verdict === "yes");
    case "contradicted":
      return verdicts.includes("no");
    case "not in context":
    case "extra information":
      return verdicts.includes("idk") && !verdicts.includes("no");
    case "covered":
      return counted.length > 0 && counted.every((answers) => answers.summary === "yes");
    case "not covered":
      return counted.some((answers) => answers.summary !== "yes");
  }
}

/** What the metric decided, in the example's words: its claims' verdicts, or the answers. */
export function describeClaims(
  expected: ClaimClass,
  verdicts: readonly string[],
  coverage: readonly CoverageAnswers[],
): string {
  if (expected === "covered" || expected === "not covered") {
    return `answers ${coverage.map((answers) => `${answers.original}/${answers.summary}`).join(", ") || "none"} (original/summary)`;
  }
  const claims = `${verdicts.length} claim${verdicts.length === 1 ? "" : "s"}`;
  return verdicts.length === 0 ? claims : `${claims}: ${verdicts.join(", ")}`;
}
