import type {
  CaseCostEstimate,
  CaseMetricEstimate,
  CostEstimate,
  MetricCostEstimate,
} from "../../results/cost-estimate.ts";
import { addSpendEstimates, SpendTally } from "./spend-tally.ts";

interface MetricEntry {
  name: string;
  judge: string;
  price: CaseMetricEstimate["price"];
  priceFactor: number;
  tally: SpendTally;
}

/**
 * Adds up the estimates of a dry run's cases into the run's, per metric (by name and judge)
 * and in total. A charge whose key was counted before is shared, not paid again: across the
 * whole run when it caches answers (a request asked again later is a cache hit), within its
 * case otherwise (only requests asked together are shared).
 */
export class CostEstimateBuilder {
  private readonly metrics = new Map<string, MetricEntry>();
  private readonly counted = new Set<string>();
  private cases = 0;
  private cacheLookedUp = true;

  /** Adds one case's estimate (every trial of it). */
  addCase(estimate: CaseCostEstimate): void {
    this.cases += 1;
    if (!estimate.cacheLookedUp) this.cacheLookedUp = false;
    const counted = estimate.cacheOn ? this.counted : new Set<string>();
    for (const metric of estimate.metrics) {
      const id = `${metric.name}\n${metric.judge}`;
      let entry = this.metrics.get(id);
      if (entry === undefined) {
        entry = { ...metric, tally: new SpendTally() };
        this.metrics.set(id, entry);
      }
      entry.tally.addFree(metric);
      for (const charge of metric.charges) {
        const shared = counted.has(charge.key);
        counted.add(charge.key);
        entry.tally.add(charge, shared);
      }
    }
  }

  /** The run's estimate. */
  build(options: { trials: number; resumedTestCases: number; batch: boolean }): CostEstimate {
    const unpriced = new Set<string>();
    const metrics: MetricCostEstimate[] = [...this.metrics.values()].map((entry) => {
      if (entry.price === null) unpriced.add(entry.judge);
      return {
        name: entry.name,
        judge: entry.judge,
        ...entry.tally.toSpend({ price: entry.price, factor: entry.priceFactor }),
      };
    });
    return {
      testCases: this.cases,
      trials: options.trials,
      resumedTestCases: options.resumedTestCases,
      metrics,
      total: addSpendEstimates(metrics),
      unpricedJudges: [...unpriced].sort(),
      batch: options.batch,
      cacheLookedUp: this.cacheLookedUp,
    };
  }
}
