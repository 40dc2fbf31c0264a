import type { ModelPrice } from "../../judge/usage-and-cost.ts";
import type {
  EstimateRange,
  SpendEstimate,
  StepChargeEstimate,
} from "../../results/cost-estimate.ts";

const BOUNDS = ["low", "expected", "high"] as const;

function zero(): EstimateRange {
  return { low: 0, expected: 0, high: 0 };
}

/** The calls and tokens a dry run charges one metric (or the run), added up bound by bound. */
export class SpendTally {
  private readonly judgeCalls = zero();
  private readonly inputTokens = zero();
  private readonly outputTokens = zero();
  private sharedCalls = 0;
  private cacheHits = 0;

  /** Adds a step's charge: its calls, and each call's tokens; a `shared` one only counts as shared. */
  add(charge: StepChargeEstimate, shared: boolean): void {
    if (shared) {
      this.sharedCalls += charge.calls.expected;
      return;
    }
    for (const bound of BOUNDS) {
      const calls = charge.calls[bound];
      this.judgeCalls[bound] += calls;
      this.inputTokens[bound] += calls * charge.inputTokens[bound];
      this.outputTokens[bound] += calls * charge.outputTokens[bound];
    }
  }

  /** Counts requests answered without a call: from the cache, or shared with an earlier one. */
  addFree(options: { cacheHits: number; sharedCalls: number }): void {
    this.cacheHits += options.cacheHits;
    this.sharedCalls += options.sharedCalls;
  }

  /** The tally as a spend, priced at `price` (per million tokens) times `factor` (batch); unknown price, unknown cost. */
  toSpend(options: { price: ModelPrice | null; factor: number }): SpendEstimate {
    const { price, factor } = options;
    const cost = (bound: (typeof BOUNDS)[number]) =>
      price === null
        ? 0
        : ((this.inputTokens[bound] * price.inputPerMillion +
            this.outputTokens[bound] * price.outputPerMillion) /
            1_000_000) *
          factor;
    return {
      judgeCalls: { ...this.judgeCalls },
      inputTokens: { ...this.inputTokens },
      outputTokens: { ...this.outputTokens },
      costUsd:
        price === null
          ? null
          : { low: cost("low"), expected: cost("expected"), high: cost("high") },
      cacheHits: this.cacheHits,
      sharedCalls: this.sharedCalls,
    };
  }
}

/** The sum of spends (a run's total of its metrics'); unknown cost stays unknown. */
export function addSpendEstimates(spends: readonly SpendEstimate[]): SpendEstimate {
  const sum = (pick: (spend: SpendEstimate) => EstimateRange): EstimateRange => {
    const total = zero();
    for (const spend of spends) for (const bound of BOUNDS) total[bound] += pick(spend)[bound];
    return total;
  };
  const costs = spends.map((spend) => spend.costUsd);
  return {
    judgeCalls: sum((spend) => spend.judgeCalls),
    inputTokens: sum((spend) => spend.inputTokens),
    outputTokens: sum((spend) => spend.outputTokens),
    costUsd: costs.every((cost) => cost !== null)
      ? sum((spend) => spend.costUsd as EstimateRange)
      : null,
    cacheHits: spends.reduce((total, spend) => total + spend.cacheHits, 0),
    sharedCalls: spends.reduce((total, spend) => total + spend.sharedCalls, 0),
  };
}
