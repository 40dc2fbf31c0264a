import { ConfigError } from "../../errors/config-error.ts";
import { BATCH_PRICE_FACTOR } from "../../judge/usage-and-cost.ts";
import type { BaseMetric } from "../../metrics/base-metric.ts";
import { renderCostEstimate } from "../../report/cost-estimate-report.ts";
import type { CostEstimate, MetricCostEstimate } from "../../results/cost-estimate.ts";
import { openStore } from "../../store/open-store.ts";
import { readTestResults } from "../../store/read-test-results.ts";
import { parseShard } from "../../store/run-shards.ts";
import type { Store } from "../../store/run-store.ts";
import { describeTestCase, type LLMTestCase } from "../../test-case/llm-test-case.ts";
import { fingerprintTestCase } from "../build-test-result.ts";
import {
  checkEvaluateOptions,
  checkListedCases,
  type EvaluateOptions,
} from "../evaluate-test-cases.ts";
import { JudgeResolver } from "../judge-resolver.ts";
import { shardIndices } from "../run-session.ts";
import { JudgeScheduler } from "../scheduler.ts";
import { chargeMetricRun, judgedFieldsKey } from "./charge-metric-run.ts";
import { DryRunRequests, DryRunStop } from "./dry-run-requests.ts";
import { addSpendEstimates, SpendTally } from "./spend-tally.ts";

/**
 * `evaluate({ dryRun: true })`: what the run would spend on its judges, without asking any.
 * Each metric runs on each case as it would, through a transport that answers from the judge
 * cache only: requests the cache answers are free, and so are requests met before (the run
 * asks them once). At the first request the cache cannot answer, the metric stops: that
 * request is counted from its real prompt, and the steps after it from the metric's own
 * estimate ({@link BaseMetric.estimate}). Nothing is written: the store is only read (its
 * cache, and with `resume` the cases the run already finished, which are left out). The
 * estimate is printed unless `display` is `"none"`.
 */
export async function estimateRun(options: EvaluateOptions): Promise<CostEstimate> {
  const metrics = checkEvaluateOptions(options);
  if (!Array.isArray(options.testCases)) {
    throw new ConfigError(
      "A dry run needs every test case up front: pass testCases as an array (a generator would be used up by the dry run).",
    );
  }
  const checked = await checkListedCases(options.testCases, options);
  const env = options.env ?? process.env;
  const judges = new JudgeResolver(env);
  await judges.resolve(metrics);
  const described = judges.describe(metrics);
  const repeat = options.repeat ?? 1;
  const shard = options.shard === undefined ? null : parseShard(options.shard);
  const indices = shardIndices({ total: checked.length, shard });

  // Read only: a dry run never creates the default store, nor writes to any.
  const readsStore =
    options.scheduler === undefined && (options.cache !== false || options.resume === true);
  const opened = readsStore
    ? await openStore({ store: options.store, env, purpose: "read" })
    : null;
  try {
    const store = opened?.store ?? null;
    const scheduler =
      options.scheduler ??
      new JudgeScheduler({
        cache: store?.judgeCache ?? null,
        cacheMode: options.cache ?? true,
      });
    const finished =
      options.resume && options.identifier !== undefined && store !== null
        ? await finishedFingerprints(store, options.identifier)
        : new Map<number, string>();
    // With the cache on, a request asked again later is a cache hit: paid once in the run. With
    // it off, only requests asked together are shared (those of one case): each case pays its own.
    let requests = new DryRunRequests({ scheduler });
    const tallies = metrics.map(() => new SpendTally());
    const metricKeys = described.map((description) => JSON.stringify(description));
    let counted = 0;
    let resumed = 0;
    for (const index of indices) {
      const entry = checked[index];
      // An invalid case is never sent to a judge.
      if (entry === undefined || entry.testCase === null) continue;
      const testCase = entry.testCase as LLMTestCase;
      const fingerprint = fingerprintTestCase({ testCase, metrics: described, repeat });
      if (finished.get(index) === fingerprint) {
        resumed += 1;
        continue;
      }
      counted += 1;
      if (!scheduler.usesCache) requests = new DryRunRequests({ scheduler });
      const testCaseName = describeTestCase(testCase, index);
      for (let trial = 0; trial < repeat; trial++) {
        for (const [position, metric] of metrics.entries()) {
          const tally = tallies[position] as SpendTally;
          const record = requests.begin();
          const outcome = await metric.run(testCase, {
            judge: judges.judgeOf(metric),
            transport: record.transport,
            trial,
            testCaseName,
            verbose: false,
            env,
          });
          tally.addFree(record);
          const stop = outcome.error instanceof DryRunStop ? outcome.error : null;
          if (stop === null) continue;
          const charges = chargeMetricRun({
            stop,
            record,
            steps: await metric.estimate(testCase),
            metricKey: metricKeys[position] as string,
            judgedKey: judgedFieldsKey(metric.judgedFields.map((field) => testCase[field])),
            requests,
          });
          for (const charge of charges) tally.add(charge);
        }
      }
    }
    const estimate = summarise({
      metrics,
      judges,
      tallies,
      batch: options.batch !== undefined && options.batch !== false,
      counted,
      resumed,
      trials: repeat,
      cacheLookedUp: scheduler.usesCache,
    });
    if ((options.display ?? "all") !== "none") {
      process.stdout.write(
        `${renderCostEstimate({
          estimate,
          maxCostUsd: options.budget?.maxCostUsd,
          width: process.stdout.columns ?? 80,
        })}\n`,
      );
    }
    return estimate;
  } finally {
    if (opened?.owned) await opened.store?.close();
  }
}

/** The fingerprints of the cases the latest run of `identifier` finished, by index. */
async function finishedFingerprints(
  store: Store,
  identifier: string,
): Promise<Map<number, string>> {
  const run = await store.runs.getRun(identifier);
  const finished = new Map<number, string>();
  if (run === null) return finished;
  for await (const stored of readTestResults(store, run.id)) {
    finished.set(stored.result.index, stored.fingerprint);
  }
  return finished;
}

function summarise(options: {
  metrics: ReadonlyArray<BaseMetric<object>>;
  judges: JudgeResolver;
  tallies: readonly SpendTally[];
  batch: boolean;
  counted: number;
  resumed: number;
  trials: number;
  cacheLookedUp: boolean;
}): CostEstimate {
  const unpriced = new Set<string>();
  const perMetric: MetricCostEstimate[] = options.metrics.map((metric, position) => {
    const judge = options.judges.judgeOf(metric);
    const price = judge.price ?? null;
    if (price === null) unpriced.add(judge.name);
    const factor = options.batch && (judge.batch ?? null) !== null ? BATCH_PRICE_FACTOR : 1;
    return {
      name: metric.name,
      judge: judge.name,
      ...(options.tallies[position] as SpendTally).toSpend({ price, factor }),
    };
  });
  return {
    testCases: options.counted,
    trials: options.trials,
    resumedTestCases: options.resumed,
    metrics: perMetric,
    total: addSpendEstimates(perMetric),
    unpricedJudges: [...unpriced].sort(),
    batch: options.batch,
    cacheLookedUp: options.cacheLookedUp,
  };
}
