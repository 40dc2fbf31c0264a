import { isJudgeTextHash, type JudgeText } from "../results/judge-text.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";

/** The most hashes one `getJudgeTexts` call takes: a case page asks for a few dozen. */
export const MAX_JUDGE_TEXT_HASHES = 1000;

/**
 * The judge texts a store writes with a result: each hash once (the last text given wins),
 * texts masked. Returns why they cannot be stored instead, for the store's `StoreError`.
 */
export function judgeTextsToStore(texts: readonly JudgeText[] | undefined): JudgeText[] | string {
  if (texts === undefined || texts.length === 0) return [];
  if (!Array.isArray(texts)) return "judgeTexts must be an array of { hash, text }";
  const byHash = new Map<string, string>();
  for (const [position, entry] of texts.entries()) {
    if (!isJudgeTextHash(entry?.hash) || typeof entry.text !== "string") {
      return `judgeTexts[${position}] must be { hash, text }: a SHA-256 of 64 lower-case hex digits and its text`;
    }
    byHash.set(entry.hash, redactSecretText(entry.text));
  }
  return [...byHash].map(([hash, text]) => ({ hash, text }));
}

/** The hashes a `getJudgeTexts` call asks for, checked: each once; or why they cannot be read. */
export function judgeTextHashesToRead(hashes: readonly string[]): string[] | string {
  if (!Array.isArray(hashes)) return "hashes must be an array of SHA-256 hex digests";
  const unique = [...new Set(hashes)];
  if (unique.length > MAX_JUDGE_TEXT_HASHES) {
    return `at most ${MAX_JUDGE_TEXT_HASHES} hashes a call: ask for fewer at a time`;
  }
  // An unknown string is simply not found; only a non-string is a caller's mistake.
  if (unique.some((hash) => typeof hash !== "string")) {
    return "hashes must be strings (SHA-256 hex digests)";
  }
  return unique.filter(isJudgeTextHash);
}
