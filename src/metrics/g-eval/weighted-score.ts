import type { JudgeTokenLogprob } from "../../judge/judge-model.ts";

/** Candidates under 1% probability are left out of the weighted score. */
const MIN_LOGPROB = Math.log(0.01);

/**
 * G-Eval's probability-weighted score, computed as deepeval computes it: find the last
 * generated token that is the score's literal as the judge wrote it (`"7"`), take the
 * candidates the judge weighed at that place, leave out those under 1% probability and those
 * that are not a whole number in digits, and average the numbers by their probabilities (the
 * probabilities of a number that appears twice add up). Returns `null` — use the integer score
 * — when the literal is not among the tokens or no candidate is left.
 * @example
 * // "7" at 70%, "8" at 30%: 7.3
 * weightedScore({ literal: "7", tokens: [{ token: "7", logprob: Math.log(0.7), topLogprobs: [
 *   { token: "7", logprob: Math.log(0.7) }, { token: "8", logprob: Math.log(0.3) }] }] });
 */
export function weightedScore(options: {
  /** The score as the judge's answer wrote it, e.g. `"7"` (or `"7.0"`, which no token is). */
  literal: string;
  /** The answer's tokens, in order, with their candidates. */
  tokens: readonly JudgeTokenLogprob[];
}): number | null {
  const { literal, tokens } = options;
  let place: JudgeTokenLogprob | undefined;
  for (let index = tokens.length - 1; index >= 0; index--) {
    if (tokens[index]?.token === literal) {
      place = tokens[index];
      break;
    }
  }
  if (place === undefined) return null;
  const probabilities = new Map<number, number>();
  let total = 0;
  for (const candidate of place.topLogprobs) {
    if (!(candidate.logprob >= MIN_LOGPROB)) continue;
    // deepeval keeps tokens made only of decimal digits (`str.isdecimal`); digits of other
    // scripts never name a score here and are left out.
    if (!/^[0-9]+$/.test(candidate.token)) continue;
    const probability = Math.exp(candidate.logprob);
    const value = Number.parseInt(candidate.token, 10);
    probabilities.set(value, (probabilities.get(value) ?? 0) + probability);
    total += probability;
  }
  if (total === 0) return null;
  let sum = 0;
  for (const [value, probability] of probabilities) sum += value * probability;
  return sum / total;
}

/**
 * The score's literal as the answer wrote it: the last `"score": <number>` in its text, else
 * the number as JavaScript writes it.
 */
export function scoreLiteral(rawText: string, score: number): string {
  const matches = [...rawText.matchAll(/"score"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g)];
  return matches.at(-1)?.[1] ?? String(score);
}
