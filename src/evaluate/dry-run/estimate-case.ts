import { BATCH_PRICE_FACTOR } from "../../judge/usage-and-cost.ts";
import type { BaseMetric } from "../../metrics/base-metric.ts";
import type { CaseCostEstimate, CaseMetricEstimate } from "../../results/cost-estimate.ts";
import type { LLMTestCase } from "../../test-case/llm-test-case.ts";
import type { JudgeResolver } from "../judge-resolver.ts";
import { chargeMetricRun, judgedFieldsKey } from "./charge-metric-run.ts";
import { type DryRunRequests, DryRunStop } from "./dry-run-requests.ts";

/**
 * The dry run of one case: each metric, each trial, runs as it would through `requests` (the
 * judge cache only): what the cache answers is free, and where a metric stops its charges are
 * counted (see {@link chargeMetricRun}). Metrics whose fields are missing ask nothing.
 */
export async function estimateCase(options: {
  testCase: LLMTestCase;
  testCaseName: string;
  metrics: ReadonlyArray<BaseMetric<object>>;
  judges: JudgeResolver;
  requests: DryRunRequests;
  trials: number;
  /** Whether the run batches: judges with a batch API are priced at the discount. */
  batch: boolean;
  cacheLookedUp: boolean;
  /** Whether the run caches answers (see `CaseCostEstimate.cacheOn`). */
  cacheOn: boolean;
  env: NodeJS.ProcessEnv;
}): Promise<CaseCostEstimate> {
  const { testCase, judges, requests } = options;
  const estimates: CaseMetricEstimate[] = options.metrics.map((metric) => {
    const judge = judges.judgeOf(metric);
    return {
      name: metric.name,
      judge: judge.name,
      price: judge.price ?? null,
      priceFactor: options.batch && (judge.batch ?? null) !== null ? BATCH_PRICE_FACTOR : 1,
      cacheHits: 0,
      sharedCalls: 0,
      charges: [],
    };
  });
  for (let trial = 0; trial < options.trials; trial++) {
    for (const [position, metric] of options.metrics.entries()) {
      const estimate = estimates[position] as CaseMetricEstimate;
      const record = requests.begin();
      const outcome = await metric.run(testCase, {
        judge: judges.judgeOf(metric),
        transport: record.transport,
        trial,
        testCaseName: options.testCaseName,
        verbose: false,
        env: options.env,
      });
      estimate.cacheHits += record.cacheHits;
      estimate.sharedCalls += record.sharedCalls;
      if (!(outcome.error instanceof DryRunStop)) continue;
      estimate.charges.push(
        ...chargeMetricRun({
          stop: outcome.error,
          record,
          steps: await metric.estimate(testCase),
          metricKey: JSON.stringify({ ...metric.config(), judge: estimate.judge }),
          judgedKey: judgedFieldsKey(metric.judgedFields.map((field) => testCase[field])),
        }),
      );
    }
  }
  return { cacheLookedUp: options.cacheLookedUp, cacheOn: options.cacheOn, metrics: estimates };
}
