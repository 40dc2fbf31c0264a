import type { JsonValue } from "./json-value.ts";

/** Where a judge request's answer came from. */
export type JudgeCallSource = "judge" | "cache" | "shared";

/** One judge request behind a metric result (a re-asked step is a second request). */
export interface JudgeCallRecord {
  /** The metric's step (its prompt function), e.g. `"generateVerdicts"`. */
  step: string;
  /** The judge model's name; `null` when unknown. */
  model: string | null;
  /** Tokens of the answer; `null` when the judge did not report usage. */
  inputTokens: number | null;
  outputTokens: number | null;
  /**
   * USD the answer cost when it was bought (`null` when unknown). For a cache hit or a shared
   * call nothing was paid: this is what it would have cost (counted as saved).
   */
  costUsd: number | null;
  /** Wall time from sending the request to its answer, retries and queueing included. */
  latencyMs: number | null;
  /** `"judge"`: paid for; `"cache"`: read from the judge cache; `"shared"`: an identical request in flight answered it. */
  source: JudgeCallSource;
  /**
   * SHA-256 (hex) of the prompt as sent, secrets masked: the store keeps its text under this
   * hash once per run (`JudgeText`), unless the run kept hashes only (`keepJudgeText: "hash"`).
   * Absent in results stored by older versions.
   */
  promptHash?: string | undefined;
  /** SHA-256 (hex) of the judge's raw answer (an object answer as its JSON), as `promptHash`. */
  answerHash?: string | undefined;
}

/** One intermediate step of a metric (what `verboseLogs` shows as text), as data. */
export interface MetricStep {
  /** E.g. `"Opinions"`, `"Verdicts"`, `"Statements"`. */
  label: string;
  /** What the step extracted or judged: a list of strings, of `{ verdict, reason }`, … */
  value: JsonValue;
  /**
   * For a list of verdicts, the verdict that counts against the output where the metric's
   * direction does not say it: "no" for Hallucination's contradicted contexts (lower is
   * better), "yes" for the statements PII Leakage, Role Violation and Non-Advice flag (higher
   * is better). Absent, a "yes" counts against a lower-is-better metric's output (a toxic
   * opinion) and a "no" against the others' (an irrelevant statement). The dashboard colours
   * verdicts by it.
   */
  flaggedVerdict?: string | undefined;
}

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
  /**
   * The same steps as data, in order. Absent in results stored by older versions (and in
   * results of metrics that record none).
   */
  steps?: MetricStep[] | undefined;
  /** Every judge request of the metric, in order. Absent in results stored by older versions. */
  calls?: JudgeCallRecord[] | undefined;
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
