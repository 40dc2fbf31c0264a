import { ConfigError } from "../errors/config-error.ts";
import type { JudgeModel } from "../judge/judge-model.ts";
import type { RetryPolicy } from "../judge/retry-policy.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { RunnerEvent, RunReporter } from "../results/runner-events.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { describeTestCase, toTestCase } from "../test-case/llm-test-case.ts";
import { buildTestResult, fingerprintTestCase } from "./build-test-result.ts";
import type { DisplayOption } from "./default-reporters.ts";
import {
  type ComponentEvaluateOptions,
  evaluateComponents,
  isComponentRun,
} from "./evaluate-components.ts";
import type { RunStoreOption } from "./open-run-store.ts";
import { resolveJudges } from "./resolve-judges.ts";
import { runMetrics } from "./run-metrics.ts";
import { checkRunOptions, describeRunOptions, runSession } from "./run-session.ts";
import type { CacheMode, JudgeScheduler } from "./scheduler.ts";

/** Options of {@link evaluate}. */
export interface EvaluateOptions {
  testCases: ReadonlyArray<LLMTestCase | LLMTestCaseFields>;
  metrics: ReadonlyArray<BaseMetric<object>>;
  /** Judge requests in flight per judge model. @default 20 */
  maxConcurrent?: number;
  /** Milliseconds between dispatches to one judge model. @default 0 */
  throttleMs?: number;
  /** A failed metric becomes `{ score: null, error }` instead of stopping the run. @default false */
  ignoreErrors?: boolean;
  /** Leave out a metric whose test-case fields are missing (wins over ignoreErrors). @default false */
  skipOnMissingParams?: boolean;
  /** Reuse judge answers across runs; `"replay"` fails on a miss (CI without keys). @default true */
  cache?: CacheMode;
  /** Runs each case this many times (distinct trials, never served from each other). @default 1 */
  repeat?: number;
  /** Print every metric's intermediate steps. */
  verbose?: boolean;
  /** Which cases the end report shows; `"none"` prints nothing. @default "all" */
  display?: DisplayOption;
  /** Show a progress bar (or periodic lines when not on a terminal). @default display !== "none" */
  showProgress?: boolean;
  /** Names the run, for `resume` and comparisons. */
  identifier?: string;
  /** Continue the latest run with `identifier`, reusing its finished cases. @default false */
  resume?: boolean;
  /** Where runs and the judge cache are kept: the `.verdict/` SQLite store by default, a RunStore, or `false`. */
  store?: RunStoreOption;
  /** Called with every runner event. */
  onProgress?: (event: RunnerEvent) => void;
  /** More consumers of runner events. */
  reporters?: RunReporter[];
  /** Cancels the run: finished cases are kept and the run is marked interrupted. */
  signal?: AbortSignal;
  /** Retry policy for judge calls. */
  retry?: Partial<RetryPolicy>;
  /** Stop on Ctrl-C and mark the run interrupted. @default true */
  handleInterrupt?: boolean;
  /** Environment for model and store resolution. @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * A scheduler shared with other runs (e.g. every assertion of a test file), with its own
   * concurrency, retries and cache; `maxConcurrent`, `throttleMs`, `retry` and `cache` are
   * then the scheduler's.
   */
  scheduler?: JudgeScheduler;
}

/**
 * Scores every test case with every metric, sharing one judge scheduler (concurrency,
 * retries, identical requests asked once, a persistent cache), writing each finished case
 * to the store as it finishes, and reporting progress and a final report.
 * @example
 * const result = await evaluate({
 *   testCases: [{ input: "How is Sarah?", actualOutput: "Sarah always meant well…" }],
 *   metrics: [new ToxicityMetric(), new BiasMetric()],
 * });
 * console.log(result.summary.metrics);
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluationResult>;
/**
 * Component-level run: calls the application once per golden under a fresh trace, then
 * scores each observed span's metrics and the trace-level metrics; each result carries the
 * span tree in `trace`. See {@link evaluateComponents}.
 * @example
 * const result = await evaluate({
 *   goldens: [new Golden({ input: "What if these shoes don't fit?" })],
 *   observedCallback: (input) => answerQuestion(String(input)),
 * });
 * console.log(result.testResults[0]?.trace);
 */
export async function evaluate(options: ComponentEvaluateOptions): Promise<EvaluationResult>;
export async function evaluate(
  options: EvaluateOptions | ComponentEvaluateOptions,
): Promise<EvaluationResult> {
  if (isComponentRun(options)) return evaluateComponents(options);
  const startedAt = Date.now();
  const env = options.env ?? process.env;
  const repeat = options.repeat ?? 1;
  if (!Array.isArray(options.testCases)) {
    throw new ConfigError("evaluate() needs testCases: an array of LLMTestCase or plain objects.");
  }
  if (!Array.isArray(options.metrics) || options.metrics.length === 0) {
    throw new ConfigError(
      "evaluate() needs metrics: an array with at least one metric, e.g. [new ToxicityMetric()].",
    );
  }
  checkRunOptions(options);
  const testCases = options.testCases.map((testCase) => toTestCase(testCase));
  const metrics = options.metrics;
  const judges = await resolveJudges({ metrics, env });
  const fingerprints = testCases.map((testCase) =>
    fingerprintTestCase({ testCase, metrics, judges, repeat }),
  );

  return runSession({
    options,
    startedAt,
    total: testCases.length,
    fingerprints,
    metricNames: metrics.map((metric) => metric.name),
    config: runConfig({ options, metrics, judges, repeat }),
    scoreCase: async (index, session) => {
      const testCase = testCases[index] as LLMTestCase;
      const testCaseName = describeTestCase(testCase, index);
      const trials: Array<{ trial: number; metricsData: MetricData[] }> = [];
      for (let trial = 0; trial < repeat; trial++) {
        const outcomes = await runMetrics({
          jobs: metrics.map((metric) => ({ metric })),
          run: ({ metric }) =>
            metric.run(testCase, {
              judge: judges.get(metric) as JudgeModel,
              transport: session.scheduler,
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
      session.finishCase(buildTestResult({ testCase, index, trials, repeat }));
    },
  });
}

function runConfig(options: {
  options: EvaluateOptions;
  metrics: ReadonlyArray<BaseMetric<object>>;
  judges: Map<BaseMetric<object>, JudgeModel>;
  repeat: number;
}): Record<string, unknown> {
  const { options: evaluateOptions } = options;
  return {
    metrics: options.metrics.map((metric) => ({
      ...metric.config(),
      judge: options.judges.get(metric)?.name ?? null,
    })),
    testCases: evaluateOptions.testCases.length,
    ...describeRunOptions(evaluateOptions),
    repeat: options.repeat,
  };
}
