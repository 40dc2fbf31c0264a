/**
 * The result of one metric on one test case, as plain JSON: what evaluate() returns, the
 * store keeps and every report reads.
 */
export interface MetricData {
  name: string;
  /** `null`: score-only mode. */
  threshold: number | null;
  /** `null` when the threshold is `null`; `false` when the metric errored. */
  success: boolean | null;
  /** `null` when the metric errored. */
  score: number | null;
  reason: string | null;
  strictMode: boolean;
  /**
   * Which way the score improves: `true` for Toxicity and Bias (passing is
   * `score <= threshold`), `false` for Answer Relevancy (`score >= threshold`).
   */
  lowerIsBetter: boolean;
  /** Name of the judge model, e.g. `"openai:gpt-4.1"`. */
  evaluationModel: string | null;
  /** The error's message when the metric failed. */
  error: string | null;
  /** USD; `null` when unknown. */
  evaluationCost: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** The intermediate steps (extracted items, verdicts), as text. */
  verboseLogs: string;
  /** Judge requests answered for this metric (including cached or shared ones). */
  judgeCalls: number;
  /** Of `judgeCalls`, how many were served from the cache or a shared call (no cost). */
  cachedJudgeCalls: number;
  /** Of `cachedJudgeCalls`, how many were shared with an identical request in flight. */
  sharedJudgeCalls: number;
  /**
   * What those cached or shared answers would have cost (tokens, USD; `null` when unknown).
   * Absent in results stored by older versions.
   */
  saved?: { inputTokens: number; outputTokens: number; costUsd: number | null } | undefined;
}
