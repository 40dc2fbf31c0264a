import { ConfigError } from "../../errors/config-error.ts";
import type { BaseMetric } from "../../metrics/base-metric.ts";
import { terminalWidth } from "../../report/console-report.ts";
import { renderCostEstimate } from "../../report/cost-estimate-report.ts";
import type { CaseCostEstimate, CostEstimate } from "../../results/cost-estimate.ts";
import { openStore } from "../../store/open-store.ts";
import { readTestResults } from "../../store/read-test-results.ts";
import { parseShard } from "../../store/run-shards.ts";
import type { Store } from "../../store/run-store.ts";
import {
  describeTestCase,
  type LLMTestCase,
  type LLMTestCaseFields,
} from "../../test-case/llm-test-case.ts";
import { fingerprintTestCase } from "../build-test-result.ts";
import {
  checkEvaluateOptions,
  checkListedCases,
  type EvaluateOptions,
} from "../evaluate-test-cases.ts";
import { JudgeResolver } from "../judge-resolver.ts";
import { shardIndices } from "../run-session.ts";
import { JudgeScheduler } from "../scheduler.ts";
import { CostEstimateBuilder } from "./cost-estimate-builder.ts";
import { DryRunRequests } from "./dry-run-requests.ts";
import { estimateCase } from "./estimate-case.ts";

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
    // With the cache on, an answer the cache holds serves every case that asks for it, and a
    // request asked again by a later case will be (the run fills the cache as it goes, from an
    // empty one too); with it off, only requests asked together (those of one case) share one.
    const cacheOn =
      options.scheduler === undefined
        ? (options.cache ?? true) !== false && options.store !== false
        : options.scheduler.usesCache;
    let requests = new DryRunRequests({ scheduler });
    const builder = new CostEstimateBuilder();
    const batch = options.batch !== undefined && options.batch !== false;
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
      if (!cacheOn) requests = new DryRunRequests({ scheduler });
      builder.addCase(
        await estimateCase({
          testCase,
          testCaseName: describeTestCase(testCase, index),
          metrics,
          judges,
          requests,
          trials: repeat,
          batch,
          cacheLookedUp: scheduler.usesCache,
          cacheOn,
          env,
        }),
      );
    }
    const estimate = builder.build({ trials: repeat, resumedTestCases: resumed, batch });
    if ((options.display ?? "all") !== "none") {
      process.stdout.write(
        `${renderCostEstimate({
          estimate,
          maxCostUsd: options.budget?.maxCostUsd,
          width: terminalWidth(process.stdout),
        })}\n`,
      );
    }
    return estimate;
  } finally {
    if (opened?.owned) await opened.store?.close();
  }
}

/**
 * The dry run of one test case on a scheduler shared with other runs (a Vitest worker's, whose
 * judge cache it looks requests up in): what it would ask, for `verdict test run --dry-run`,
 * whose command adds up every case's (see `CostEstimateBuilder`).
 */
export async function estimateTestCase(options: {
  testCase: LLMTestCase | LLMTestCaseFields;
  metrics: ReadonlyArray<BaseMetric<object>>;
  scheduler: JudgeScheduler;
  repeat: number;
  env: NodeJS.ProcessEnv;
}): Promise<CaseCostEstimate> {
  const metrics = checkEvaluateOptions({ testCases: [options.testCase], metrics: options.metrics });
  const [entry] = await checkListedCases([options.testCase], {});
  const testCase = entry?.testCase as LLMTestCase;
  const judges = new JudgeResolver(options.env);
  await judges.resolve(metrics);
  return estimateCase({
    testCase,
    testCaseName: describeTestCase(testCase),
    metrics,
    judges,
    requests: new DryRunRequests({ scheduler: options.scheduler }),
    trials: options.repeat,
    batch: false,
    cacheLookedUp: options.scheduler.usesCache,
    cacheOn: options.scheduler.usesCache,
    env: options.env,
  });
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
