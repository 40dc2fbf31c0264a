/**
 * A judge prompt or raw answer as a run keeps it: once per run, under the SHA-256 of its
 * text, so that a prompt repeated by several calls (Toxicity and Bias share their first step;
 * trials and re-runs repeat theirs) is stored once. Each judge call names its texts by hash
 * (`JudgeCallRecord.promptHash`, `answerHash`).
 */
export interface JudgeText {
  /** SHA-256 of `text` (UTF-8), as 64 lower-case hex digits. */
  hash: string;
  /** The text, secrets masked. */
  text: string;
}

/**
 * What a run keeps of its judge's prompts and raw answers (the run option `keepJudgeText`,
 * `verdict test run --judge-text`, `VERDICT_JUDGE_TEXT`): `"text"` keeps the texts in the store
 * beside the results (the dashboard shows them behind each judge call), `"hash"` keeps only
 * their hashes in the results (enough to tell whether two calls sent the same prompt).
 */
export type JudgeTextMode = "text" | "hash";

/** The modes of {@link JudgeTextMode}, in the order messages list them. */
export const JUDGE_TEXT_MODES: readonly JudgeTextMode[] = ["text", "hash"];

/** `true` when `value` is a SHA-256 hex digest, as judge texts are keyed. */
export function isJudgeTextHash(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}
