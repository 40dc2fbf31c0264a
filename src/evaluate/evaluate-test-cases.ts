import { randomUUID } from "node:crypto";
import { ConfigError } from "../errors/config-error.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { describeTestCase, toTestCase } from "../test-case/llm-test-case.ts";
import { buildTestResult, fingerprintTestCase } from "./build-test-result.ts";
import { type CheckedCase, checkTestCases, firstInvalidCase } from "./check-test-cases.ts";
import { finishInvalidCase } from "./finish-invalid-case.ts";
import { JudgeResolver } from "./judge-resolver.ts";
import { runMetrics } from "./run-metrics.ts";
import { checkRunOptions, describeRunOptions, type RunOptions } from "./run-options.ts";
import { runSession } from "./run-session.ts";

/** Options of `evaluate()` over test cases. */
export interface EvaluateOptions extends RunOptions {
  testCases: ReadonlyArray<LLMTestCase | LLMTestCaseFields>;
  metrics: ReadonlyArray<BaseMetric<object>>;
}

/**
 * evaluate() over test cases: checks them, resolves the judges, and runs the cases through
 * the engine (`runSession`). Loaded by `evaluate()` on its first call.
 */
export async function evaluateTestCases(options: EvaluateOptions): Promise<EvaluationResult> {
  const startedAt = Date.now();
  const metrics = checkEvaluateOptions(options);
  const checked = await checkTestCases({
    values: options.testCases,
    make: (value) => toTestCase(value as LLMTestCaseFields),
    kind: "Test case",
    list: "testCases",
  });
  if (!options.ignoreErrors) {
    const invalid = firstInvalidCase(checked, "Test case");
    if (invalid) throw invalid;
  }
  const repeat = options.repeat ?? 1;
  const judges = new JudgeResolver(options.env ?? process.env);
  await judges.resolve(metrics);
  const described = judges.describe(metrics);
  return runSession({
    options,
    startedAt,
    total: checked.length,
    fingerprintOf: (index) => {
      const testCase = checked[index]?.testCase ?? null;
      // An invalid case is checked again on every run, never reused from a stored one.
      return testCase === null
        ? `invalid:${randomUUID()}`
        : fingerprintTestCase({ testCase, metrics: described, repeat });
    },
    metricNames: metrics.map((metric) => metric.name),
    config: {
      metrics: described,
      testCases: checked.length,
      ...describeRunOptions(options),
      repeat,
    },
    scoreCase: async (index, session) => {
      const entry = checked[index] as CheckedCase<LLMTestCase>;
      if (entry.error !== null) {
        await finishInvalidCase({ entry, index, metrics, repeat, session, note: "Not scored." });
        return;
      }
      const testCase = entry.testCase;
      const testCaseName = describeTestCase(testCase, index);
      const caseStartedAt = performance.now();
      // Every request of the case queues by the case's place: early cases finish early.
      const transport = session.scheduler.forCase();
      const trials: Array<{ trial: number; metricsData: MetricData[] }> = [];
      for (let trial = 0; trial < repeat; trial++) {
        const outcomes = await runMetrics({
          jobs: metrics.map((metric) => ({ metric })),
          run: ({ metric }) =>
            metric.run(testCase, {
              judge: judges.judgeOf(metric),
              transport,
              trial,
              signal: session.signal,
              testCaseName,
              ...(options.verbose !== undefined ? { verbose: options.verbose } : {}),
            }),
        });
        const { kept, stopped } = session.keepOutcomes({ index, trial, outcomes });
        if (stopped) return;
        trials.push({ trial, metricsData: kept.filter((data) => data !== null) });
      }
      const durationMs = Math.round(performance.now() - caseStartedAt);
      await session.finishCase(buildTestResult({ testCase, index, trials, repeat, durationMs }));
    },
  });
}

/** Checks evaluate()'s own options before anything runs; returns the metrics. */
function checkEvaluateOptions(options: EvaluateOptions): ReadonlyArray<BaseMetric<object>> {
  if (!Array.isArray(options.testCases)) {
    throw new ConfigError("evaluate() needs testCases: an array of LLMTestCase or plain objects.");
  }
  if (!Array.isArray(options.metrics) || options.metrics.length === 0) {
    throw new ConfigError(
      "evaluate() needs metrics: an array with at least one metric, e.g. [new ToxicityMetric()].",
    );
  }
  checkRunOptions(options);
  return options.metrics;
}
