/**
 * One generated token with its log-probability and the most likely candidates at its place.
 * Defined in this leaf, which imports nothing, so that the store's types (which the browser
 * app reads) can name it; `judge/judge-model.ts` exports it with the judge contract.
 */
export interface JudgeTokenLogprob {
  token: string;
  logprob: number;
  /** The most likely tokens at this place, most likely first (may or may not include `token`). */
  topLogprobs: Array<{ token: string; logprob: number }>;
}
