import { randomUUID } from "node:crypto";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { MissingTestCaseParamsError } from "../errors/missing-test-case-params-error.ts";
import type { JudgeModel } from "../judge/judge-model.ts";
import type { RetryPolicy } from "../judge/retry-policy.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type { MetricData } from "../metrics/metric-data.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { describeTestCase, toTestCase } from "../test-case/llm-test-case.ts";
import { buildTestResult, fingerprintTestCase } from "./build-test-result.ts";
import { type DisplayOption, defaultReporters } from "./default-reporters.ts";
import type { EvaluationResult, RunStatus, TestResult } from "./evaluation-result.ts";
import type { RunnerEvent, RunReporter } from "./events.ts";
import { openRunStore, type RunStoreOption } from "./open-run-store.ts";
import { resolveJudges } from "./resolve-judges.ts";
import { type CacheMode, JudgeScheduler } from "./scheduler.ts";
import { snapshotSpending, spendingSince, summarizeRun } from "./summarize-run.ts";

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

/** Errors that mean "the run stopped", not "this metric failed". */
function isRunStop(error: Error | null): boolean {
  return (
    (error instanceof JudgeCallError && error.quotaExhausted) ||
    (error instanceof EvalError && error.code === "ABORTED")
  );
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
export async function evaluate(options: EvaluateOptions): Promise<EvaluationResult> {
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
  if (!Number.isInteger(repeat) || repeat < 1) {
    throw new ConfigError(
      `repeat must be a whole number of at least 1; got ${String(options.repeat)}.`,
    );
  }
  if (options.resume && !options.identifier) {
    throw new ConfigError(
      'resume needs an identifier: evaluate({ identifier: "nightly", resume: true, … }).',
    );
  }
  const testCases = options.testCases.map((testCase) => toTestCase(testCase));
  const metrics = options.metrics;
  const judges = await resolveJudges({ metrics, env });
  const { store, cache, warning, owned } = openRunStore({
    store: options.store,
    env,
    resume: options.resume ?? false,
  });

  const controller = new AbortController();
  const onInterrupt = () => controller.abort(new EvalError("ABORTED", "Interrupted (Ctrl-C)."));
  options.signal?.addEventListener("abort", () => controller.abort(options.signal?.reason), {
    once: true,
  });
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  const handleInterrupt = options.handleInterrupt ?? true;
  if (handleInterrupt) process.once("SIGINT", onInterrupt);

  const scheduler =
    options.scheduler ??
    new JudgeScheduler({
      ...(options.maxConcurrent !== undefined ? { maxConcurrent: options.maxConcurrent } : {}),
      ...(options.throttleMs !== undefined ? { throttleMs: options.throttleMs } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      cache,
      cacheMode: options.cache ?? true,
      signal: controller.signal,
    });
  const spentBefore = snapshotSpending(scheduler.stats);

  // Resume: reuse the finished results of the run with this identifier.
  const existing = options.resume && store ? store.getRun(options.identifier as string) : null;
  const runId = existing?.id ?? randomUUID();
  const fingerprints = testCases.map((testCase) =>
    fingerprintTestCase({ testCase, metrics, repeat }),
  );
  const reused = new Map<number, TestResult>();
  if (existing && store) {
    for (const stored of store.getTestResults(existing.id)) {
      if (fingerprints[stored.result.index] === stored.fingerprint)
        reused.set(stored.result.index, stored.result);
    }
    store.reopenRun(existing.id);
  } else if (store) {
    store.startRun({
      id: runId,
      identifier: options.identifier ?? null,
      status: "running",
      startedAt: new Date(startedAt).toISOString(),
      endedAt: null,
      config: runConfig({ options, metrics, judges, repeat }),
      summary: null,
    });
  }

  const reporters = [
    ...defaultReporters({ display: options.display ?? "all", showProgress: options.showProgress }),
    ...(options.reporters ?? []),
  ];
  const failedListeners = new Set<string>();
  const emit = (event: RunnerEvent) => {
    if (event.type === "test-case-end" && store && !reused.has(event.result.index)) {
      store.saveTestResult(runId, { fingerprint: event.fingerprint, result: event.result });
    }
    // A failing reporter must not cost the run its results: it is reported once and skipped.
    const notify = (listener: () => void, name: string) => {
      try {
        listener();
      } catch (error) {
        if (!failedListeners.has(name)) {
          failedListeners.add(name);
          console.warn(
            `Warning: ${name} failed and is skipped for this run: ${(error as Error).message}`,
          );
        }
      }
    };
    reporters.forEach((reporter, position) => {
      notify(() => reporter.onEvent(event), `reporter #${position + 1}`);
    });
    if (options.onProgress) notify(() => options.onProgress?.(event), "onProgress");
  };
  emit({
    type: "run-start",
    runId,
    identifier: options.identifier ?? null,
    totalTestCases: testCases.length,
    resumedTestCases: reused.size,
    metricNames: metrics.map((metric) => metric.name),
    startedAt: new Date(startedAt).toISOString(),
  });

  const results: Array<TestResult | undefined> = testCases.map((_, index) => reused.get(index));
  let fatal: Error | null = null;
  let finished = reused.size;

  const scoreCase = async (index: number) => {
    const testCase = testCases[index] as LLMTestCase;
    const testCaseName = describeTestCase(testCase, index);
    const trials: Array<{ trial: number; metricsData: MetricData[] }> = [];
    let stopped = false;
    for (let trial = 0; trial < repeat; trial++) {
      const runMetric = async (metric: BaseMetric<object>) => {
        const { data, error } = await metric.run(testCase, {
          judge: judges.get(metric) as JudgeModel,
          transport: scheduler,
          trial,
          signal: controller.signal,
          testCaseName,
          ...(options.verbose !== undefined ? { verbose: options.verbose } : {}),
        });
        return { data, error };
      };
      // Metrics with asyncMode false run after the others, one at a time.
      const outcomes: Array<Awaited<ReturnType<typeof runMetric>>> = new Array(metrics.length);
      await Promise.all(
        metrics.map(async (metric, position) => {
          if (metric.asyncMode) outcomes[position] = await runMetric(metric);
        }),
      );
      for (const [position, metric] of metrics.entries()) {
        if (!metric.asyncMode) outcomes[position] = await runMetric(metric);
      }
      const metricsData: MetricData[] = [];
      for (const { data, error } of outcomes) {
        if (error && isRunStop(error)) {
          stopped = true;
          continue;
        }
        if (error instanceof MissingTestCaseParamsError && options.skipOnMissingParams) continue;
        if (error && !options.ignoreErrors) {
          fatal ??= error;
          stopped = true;
          scheduler.stop(
            new EvalError("ABORTED", `The run stopped after an error: ${error.message}`),
          );
          continue;
        }
        metricsData.push(data);
        emit({ type: "metric-end", runId, testCaseIndex: index, trial, metric: data });
      }
      if (stopped) return;
      trials.push({ trial, metricsData });
    }
    const result = buildTestResult({ testCase, index, trials, repeat });
    results[index] = result;
    finished += 1;
    emit({
      type: "test-case-end",
      runId,
      result,
      fingerprint: fingerprints[index] as string,
      finished,
      judgeCalls: scheduler.stats.judgeCalls,
      costUsd: scheduler.stats.costUsd,
    });
  };

  // Cases are started a window at a time, so prompts are built close to dispatch and a
  // huge suite does not sit in memory as pending requests.
  const pending = testCases.map((_, index) => index).filter((index) => !reused.has(index));
  const window = Math.max(8, 2 * (options.maxConcurrent ?? 20));
  let next = 0;
  const worker = async () => {
    while (next < pending.length && !scheduler.stoppedBy) {
      const index = pending[next++] as number;
      try {
        await scoreCase(index);
      } catch (error) {
        // Not a metric failure (those are results): the store or a reporter broke. Stop,
        // keep what finished, and report it.
        fatal ??= error instanceof Error ? error : new Error(String(error));
        scheduler.stop(
          new EvalError("ABORTED", `The run stopped after an error: ${fatal.message}`),
        );
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(window, pending.length) }, worker));
  } finally {
    if (handleInterrupt) process.removeListener("SIGINT", onInterrupt);
  }

  const testResults = results.filter((result): result is TestResult => result !== undefined);
  const stopError = scheduler.stoppedBy;
  const status: RunStatus = fatal
    ? "failed"
    : stopError instanceof JudgeCallError
      ? "quota-exhausted"
      : controller.signal.aborted
        ? "interrupted"
        : "completed";
  const summary = summarizeRun({
    status,
    testResults,
    total: testCases.length,
    spending: spendingSince({ before: spentBefore, now: scheduler.stats }),
    durationMs: Date.now() - startedAt,
  });
  const result: EvaluationResult = {
    testRunId: runId,
    identifier: options.identifier ?? null,
    testResults,
    summary,
  };
  try {
    store?.finishRun({ runId, status, endedAt: new Date().toISOString(), summary });
  } catch (error) {
    console.warn(`Warning: the run's end could not be stored: ${(error as Error).message}`);
  }
  const resumeHint = `Resume with evaluate({ identifier: "${options.identifier ?? runId}", resume: true, … }).`;
  const message =
    status === "interrupted"
      ? `Run interrupted: ${testResults.length}/${testCases.length} test cases finished and stored. ${resumeHint}`
      : status === "quota-exhausted"
        ? `${(stopError as Error).message} ${summary.testCases.unscored} test cases were left unscored; ${testResults.length} finished and stored. ${resumeHint}`
        : status === "failed"
          ? `Run stopped by an error; ${testResults.length}/${testCases.length} test cases finished and stored.`
          : warning;
  emit({ type: "run-end", runId, result, message });
  if (owned) store?.close();
  if (fatal) throw fatal;
  return result;
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
    maxConcurrent: evaluateOptions.maxConcurrent ?? 20,
    throttleMs: evaluateOptions.throttleMs ?? 0,
    ignoreErrors: evaluateOptions.ignoreErrors ?? false,
    skipOnMissingParams: evaluateOptions.skipOnMissingParams ?? false,
    cache: evaluateOptions.cache ?? true,
    repeat: options.repeat,
  };
}
