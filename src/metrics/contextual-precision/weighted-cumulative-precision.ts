/**
 * deepeval's weighted cumulative precision of verdicts in rank order: the sum, over each
 * useful node at rank k, of (useful nodes up to k) ÷ k, divided by the useful nodes; 0 when
 * there are no verdicts or no useful node.
 */
export function weightedCumulativePrecision(verdicts: ReadonlyArray<{ verdict: string }>): number {
  if (verdicts.length === 0) return 0;
  let useful = 0;
  let sum = 0;
  for (const [index, { verdict }] of verdicts.entries()) {
    if (verdict !== "yes") continue;
    useful += 1;
    sum += useful / (index + 1);
  }
  return useful === 0 ? 0 : sum / useful;
}
