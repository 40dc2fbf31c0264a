/**
 * A figure a dry run is unsure about: what it expects, and the range it can fall in. The
 * range is the model's: every step that may be skipped skipped and every list empty (`low`),
 * or every step asked and every sentence an item (`high`); re-asks of malformed answers are
 * left out of both.
 */
export interface EstimateRange {
  low: number;
  expected: number;
  high: number;
}

/** What a dry run expects a run, or one metric of it, to spend on its judges. */
export interface SpendEstimate {
  /** Judge calls to pay for: requests the cache answers or another case asks too are not counted. */
  judgeCalls: EstimateRange;
  /** Prompt tokens of those calls (characters ÷ 4; see the docs on cost). */
  inputTokens: EstimateRange;
  /** Completion tokens of those calls. */
  outputTokens: EstimateRange;
  /**
   * USD at the judges' prices, at the batch discount when the run batches; `null` when a
   * judge's price is unknown (never a guess).
   */
  costUsd: EstimateRange | null;
  /** Requests the judge cache answers: free. */
  cacheHits: number;
  /** Requests another case or metric asks too (the same request, paid once): expected count. */
  sharedCalls: number;
}

/** A metric's share of a {@link CostEstimate}. */
export interface MetricCostEstimate extends SpendEstimate {
  /** The metric's name, as results name it. */
  name: string;
  /** The judge it asks. */
  judge: string;
}

/**
 * What a dry run (`evaluate({ dryRun: true })`, `verdict test run --dry-run`) expects a run to
 * spend, before any judge call: per metric and in total.
 */
export interface CostEstimate {
  /** Test cases the run would score (those a resumed run already finished left out). */
  testCases: number;
  /** Trials of each case (`repeat`). */
  trials: number;
  /** Cases the resumed run already finished: not counted. */
  resumedTestCases: number;
  metrics: MetricCostEstimate[];
  total: SpendEstimate;
  /** Judges whose price verdict does not know: the cost of their calls is unknown, and so is the total's. */
  unpricedJudges: string[];
  /** Whether batch prices apply (`batch`, for judges with a batch API). */
  batch: boolean;
  /** Whether the judge cache was looked up (`cache` on, and a store that has one). */
  cacheLookedUp: boolean;
}

/**
 * What one case of a dry run would ask, before requests asked by several cases are counted
 * once: each metric's requests answered for free, and the charges of those that would be paid,
 * each under a key that identifies it (the same key, the same request). What a Vitest worker
 * sends back for `verdict test run --dry-run`.
 */
export interface CaseCostEstimate {
  /** Whether the judge cache was read (it holds answers, and the cache is on). */
  cacheLookedUp: boolean;
  /**
   * Whether the run keeps answers in a judge cache: a request asked again by a later case is
   * then answered by the cache, so identical requests of several cases are paid once.
   */
  cacheOn: boolean;
  metrics: CaseMetricEstimate[];
}

/** One metric's share of a {@link CaseCostEstimate}. */
export interface CaseMetricEstimate {
  name: string;
  judge: string;
  /** The judge's price per million tokens; `null` when unknown. */
  price: { inputPerMillion: number; outputPerMillion: number } | null;
  /** What the price is multiplied by: 0.5 at the batch discount, else 1. */
  priceFactor: number;
  /** Requests the judge cache answered. */
  cacheHits: number;
  /** Requests answered by an identical one asked before. */
  sharedCalls: number;
  charges: StepChargeEstimate[];
}

/** A step a dry run counts as paid, unless a request of the same key was counted before. */
export interface StepChargeEstimate {
  step: string;
  key: string;
  calls: EstimateRange;
  /** Tokens of one call. */
  inputTokens: EstimateRange;
  outputTokens: EstimateRange;
}
