import { randomUUID } from "node:crypto";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { MissingTestCaseParamsError } from "../errors/missing-test-case-params-error.ts";
import type { MetricRunResult } from "../metrics/base-metric.ts";
import type { EvaluationResult, RunStatus, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { RunnerEvent } from "../results/runner-events.ts";
import { snapshotSpending, spendingSince } from "../results/spending.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import { defaultReporters } from "./default-reporters.ts";
import type { EvaluateOptions } from "./evaluate.ts";
import { openRunStore } from "./open-run-store.ts";
import { JudgeScheduler } from "./scheduler.ts";

/** What every run shares, whatever it scores: everything of evaluate() but the cases and metrics. */
export type RunOptions = Omit<EvaluateOptions, "testCases" | "metrics">;

/** What a run's cases use while they are scored. */
export interface RunSession {
  readonly runId: string;
  /** The judge transport every metric of the run goes through. */
  readonly scheduler: JudgeScheduler;
  /** Aborted when the run is cancelled. */
  readonly signal: AbortSignal;
  /**
   * Applies the run's error policy to one trial's metric outcomes and reports the kept ones:
   * `kept` holds each outcome's data, or `null` when it was left out (skipped for missing
   * params, or the run stopped). When `stopped`, the case must not be finished.
   */
  keepOutcomes(options: { index: number; trial: number; outcomes: readonly MetricRunResult[] }): {
    kept: Array<MetricData | null>;
    stopped: boolean;
  };
  /** Records a finished case: stored at once, then reported. */
  finishCase(result: TestResult): void;
  /** Stops the run after an error that is not a metric result; evaluate() then throws it. */
  fail(error: Error): void;
}

/** What a kind of run brings to {@link runSession}. */
export interface RunPlan {
  options: RunOptions;
  /** When the run began (`Date.now()`), for its duration. */
  startedAt: number;
  /** Cases in the run. */
  total: number;
  /** One per case: what a resumed run compares to reuse a stored result. */
  fingerprints: readonly string[];
  /** Metric names announced at the start. */
  metricNames: string[];
  /** The run's configuration, stored with it. */
  config: Record<string, unknown>;
  /** Scores case `index` and finishes it through the session (or stops). */
  scoreCase: (index: number, session: RunSession) => Promise<void>;
  /** Checked after the last case: an error fails the run. */
  checkFinished?: (testResults: readonly TestResult[]) => Error | null;
}

/** Checks the options every kind of run shares, before anything runs. */
export function checkRunOptions(options: RunOptions): void {
  const repeat = options.repeat ?? 1;
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
}

/** Errors that mean "the run stopped", not "this metric failed". */
function isRunStop(error: Error | null): boolean {
  return (
    (error instanceof JudgeCallError && error.quotaExhausted) ||
    (error instanceof EvalError && error.code === "ABORTED")
  );
}

/**
 * Runs the cases of a plan the way every evaluate() run goes: one shared judge scheduler,
 * a window of concurrent cases, each finished case written to the store as it finishes,
 * resume, cancellation, runner events for the reporters, and the summary at the end.
 */
export async function runSession(plan: RunPlan): Promise<EvaluationResult> {
  const { options, startedAt } = plan;
  const env = options.env ?? process.env;
  const { store, cache, warning, owned } = openRunStore({
    store: options.store,
    env,
    resume: options.resume ?? false,
  });

  // Resume: reuse the finished results of the run with this identifier. Done before any
  // listener is attached, and an owned store is closed if it fails, so nothing leaks.
  let runId: string = randomUUID();
  const reused = new Map<number, TestResult>();
  try {
    const existing = options.resume && store ? store.getRun(options.identifier as string) : null;
    if (existing && store) {
      runId = existing.id;
      for (const stored of store.getTestResults(existing.id)) {
        if (plan.fingerprints[stored.result.index] === stored.fingerprint)
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
        config: plan.config,
        summary: null,
      });
    }
  } catch (error) {
    if (owned) store?.close();
    throw error;
  }

  const controller = new AbortController();
  const onInterrupt = () => controller.abort(new EvalError("ABORTED", "Interrupted (Ctrl-C)."));
  const onSignal = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onSignal, { once: true });
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
    totalTestCases: plan.total,
    resumedTestCases: reused.size,
    metricNames: plan.metricNames,
    startedAt: new Date(startedAt).toISOString(),
  });

  const results: Array<TestResult | undefined> = Array.from({ length: plan.total }, (_, index) =>
    reused.get(index),
  );
  let fatal: Error | null = null;
  let finished = reused.size;
  // Stopping goes through this run's own signal: a scheduler shared with other runs (the
  // `scheduler` option) must stay usable after one of them fails.
  const fail = (error: Error) => {
    fatal ??= error;
    controller.abort(new EvalError("ABORTED", `The run stopped after an error: ${error.message}`));
  };
  const runStopped = () => controller.signal.aborted || scheduler.stoppedBy !== null;

  const session: RunSession = {
    runId,
    scheduler,
    signal: controller.signal,
    keepOutcomes: ({ index, trial, outcomes }) => {
      let stopped = false;
      const kept = outcomes.map(({ data, error }): MetricData | null => {
        if (error && isRunStop(error)) {
          stopped = true;
          return null;
        }
        if (error instanceof MissingTestCaseParamsError && options.skipOnMissingParams) {
          return null;
        }
        if (error && !options.ignoreErrors) {
          stopped = true;
          fail(error);
          return null;
        }
        emit({ type: "metric-end", runId, testCaseIndex: index, trial, metric: data });
        return data;
      });
      return { kept, stopped };
    },
    finishCase: (result) => {
      results[result.index] = result;
      finished += 1;
      emit({
        type: "test-case-end",
        runId,
        result,
        fingerprint: plan.fingerprints[result.index] as string,
        finished,
        judgeCalls: scheduler.stats.judgeCalls,
        costUsd: scheduler.stats.costUsd,
      });
    },
    fail,
  };

  // Cases are started a window at a time, so prompts are built close to dispatch and a
  // huge suite does not sit in memory as pending requests.
  const pending = Array.from({ length: plan.total }, (_, index) => index).filter(
    (index) => !reused.has(index),
  );
  const window = Math.max(8, 2 * (options.maxConcurrent ?? 20));
  let next = 0;
  const worker = async () => {
    while (next < pending.length && !runStopped()) {
      const index = pending[next++] as number;
      try {
        await plan.scoreCase(index, session);
      } catch (error) {
        // Not a metric failure (those are results): the store or a reporter broke. Stop,
        // keep what finished, and report it.
        fail(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(window, pending.length) }, worker));
  } finally {
    if (handleInterrupt) process.removeListener("SIGINT", onInterrupt);
    options.signal?.removeEventListener("abort", onSignal);
  }

  const testResults = results.filter((result): result is TestResult => result !== undefined);
  if (!fatal && !runStopped() && plan.checkFinished) {
    fatal = plan.checkFinished(testResults);
  }
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
    total: plan.total,
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
      ? `Run interrupted: ${testResults.length}/${plan.total} test cases finished and stored. ${resumeHint}`
      : status === "quota-exhausted"
        ? `${(stopError as Error).message} ${summary.testCases.unscored} test cases were left unscored; ${testResults.length} finished and stored. ${resumeHint}`
        : status === "failed"
          ? `Run stopped by an error; ${testResults.length}/${plan.total} test cases finished and stored.`
          : warning;
  emit({ type: "run-end", runId, result, message });
  if (owned) store?.close();
  if (fatal) throw fatal;
  return result;
}

/** The run options kept in a stored run's configuration. */
export function describeRunOptions(options: RunOptions): Record<string, unknown> {
  return {
    maxConcurrent: options.maxConcurrent ?? 20,
    throttleMs: options.throttleMs ?? 0,
    ignoreErrors: options.ignoreErrors ?? false,
    skipOnMissingParams: options.skipOnMissingParams ?? false,
    cache: options.cache ?? true,
  };
}
