import type { JudgeSpending, TestResult } from "../evaluate/evaluation-result.ts";
import { addCosts } from "../judge/usage-and-cost.ts";
import type { MetricData } from "../metrics/metric-data.ts";

/** Options of {@link spendingFromResults}. */
export interface SpendingFromResultsOptions {
  testResults: readonly TestResult[];
}

function metricsOf(result: TestResult): MetricData[] {
  return result.trials.length > 0
    ? result.trials.flatMap((trial) => trial.metricsData)
    : result.metricsData;
}

/**
 * What a set of results spent on the judge, added up from each metric's own figures
 * (`judgeCalls`, `cachedJudgeCalls`, tokens, `evaluationCost`, `saved`). This is what a run
 * gathered from many processes can know: calls answered from the cache or shared with an
 * identical call count as cache hits.
 * @example
 * const spending = spendingFromResults({ testResults: result.testResults });
 */
export function spendingFromResults(options: SpendingFromResultsOptions): JudgeSpending {
  let judgeCalls = 0;
  let cacheHits = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd: number | null = 0;
  const saved = { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 as number | null };
  for (const result of options.testResults) {
    for (const metric of metricsOf(result)) {
      judgeCalls += metric.judgeCalls - metric.cachedJudgeCalls;
      cacheHits += metric.cachedJudgeCalls;
      inputTokens += metric.inputTokens ?? 0;
      outputTokens += metric.outputTokens ?? 0;
      costUsd = addCosts(costUsd, metric.evaluationCost);
      saved.judgeCalls += metric.cachedJudgeCalls;
      saved.inputTokens += metric.saved?.inputTokens ?? 0;
      saved.outputTokens += metric.saved?.outputTokens ?? 0;
      saved.costUsd = addCosts(saved.costUsd, metric.saved ? metric.saved.costUsd : null);
    }
  }
  return {
    judgeCalls,
    cacheHits,
    sharedCalls: 0,
    inputTokens,
    outputTokens,
    costUsd,
    saved,
  };
}
