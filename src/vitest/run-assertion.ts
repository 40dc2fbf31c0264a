import type { RunnerTestCase } from "vitest";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { evaluate } from "../evaluate/evaluate.ts";
import type { CacheMode } from "../evaluate/judge-scheduler-options.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import { hasThresholdFailure } from "../results/case-metrics.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import type { JudgeText } from "../results/judge-text.ts";
import type { RunReporter } from "../results/runner-events.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { readTestRunSettings } from "./test-run-settings.ts";
import {
  outcomeOfResult,
  type VerdictCaseRecord,
  type VerdictErrorInfo,
} from "./verdict-case-record.ts";
import { getWorkerScheduler } from "./worker-scheduler.ts";

/** Options of `assertTest` and `toPass`; unset ones come from the `VERDICT_*` variables. */
export interface AssertTestOptions {
  /** Judge requests in flight per judge model in this worker. @default VERDICT_MAX_CONCURRENT, else 20 */
  maxConcurrent?: number;
  /** @default VERDICT_CACHE, else true */
  cache?: CacheMode;
  /**
   * A metric that errors does not make the assertion throw; it is still recorded (and the run
   * still ends "unscored").
   * @default VERDICT_IGNORE_ERRORS, else false
   */
  ignoreErrors?: boolean;
  /** Leave out a metric whose test-case fields are missing. @default VERDICT_SKIP_ON_MISSING_PARAMS, else false */
  skipOnMissingParams?: boolean;
  /** Print every metric's steps. @default VERDICT_VERBOSE, else each metric's verboseMode */
  verbose?: boolean;
  /** Trials of the case. @default VERDICT_REPEAT, else 1 */
  repeat?: number;
  /**
   * The test to record the result on: the test context's `task`. Needed only in concurrent
   * tests run without verdict's setup file (`verdict/vitest/setup`, which `verdict test run`
   * adds), where the running test cannot be told otherwise.
   * @default the test whose async context makes the assertion
   */
  task?: RunnerTestCase;
  /** Where judge keys and `VERDICT_*` are read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** What one assertion produced: its record (also attached to the test) and what to throw. */
export interface AssertionOutcome {
  record: VerdictCaseRecord;
  /** The case's result; `null` when it could not be scored. */
  result: TestResult | null;
  /** An error that is not a metric failure (config, quota…): thrown as is. */
  error: Error | null;
  /** Whether the metrics' failures should fail the assertion (false with ignoreErrors and only errors). */
  failed: boolean;
}

/** Options of {@link runAssertion}. */
export interface RunAssertionOptions {
  testCase: LLMTestCase | LLMTestCaseFields;
  metrics: ReadonlyArray<BaseMetric<object>>;
  options: AssertTestOptions;
  /** The test to attach the record to; `undefined` outside a test. */
  task: RunnerTestCase | undefined;
}

function describeError(error: unknown): VerdictErrorInfo {
  if (error instanceof Error) {
    return {
      name: error.name,
      code: error instanceof EvalError ? error.code : null,
      message: error.message,
    };
  }
  return { name: "Error", code: null, message: String(error) };
}

// Case indices are handed out when an assertion starts, so that assertions awaited together
// (Promise.all over a dataset) still get distinct, source-ordered indices.
const caseCounters = new WeakMap<RunnerTestCase, { attempt: string; next: number }>();

/** Drops the records of an earlier retry of this attempt and reserves the next case index. */
function reserveCaseIndex(options: {
  task: RunnerTestCase;
  attempt: { retry: number; repeat: number };
}): number {
  const { task, attempt } = options;
  const key = `${attempt.repeat}/${attempt.retry}`;
  let counter = caseCounters.get(task);
  if (counter?.attempt !== key) {
    task.meta.verdict = (task.meta.verdict ?? []).filter(
      (record) => record.repeat !== attempt.repeat || record.retry === attempt.retry,
    );
    counter = { attempt: key, next: task.meta.verdict.length };
    caseCounters.set(task, counter);
  }
  const index = counter.next;
  counter.next += 1;
  return index;
}

/**
 * Scores one case through evaluate() on the worker's shared scheduler, without store,
 * report or progress, and records the outcome on the test's `task.meta.verdict` before
 * anything is thrown.
 */
export async function runAssertion(options: RunAssertionOptions): Promise<AssertionOutcome> {
  const { task } = options;
  const attempt = { retry: task?.result?.retryCount ?? 0, repeat: task?.result?.repeatCount ?? 0 };
  const caseIndex = task ? reserveCaseIndex({ task, attempt }) : 0;
  const testName = task ? task.fullTestName || task.name : null;
  const base: RecordBase = {
    file: task?.file.name ?? "",
    testName: testName ?? "",
    caseIndex,
    retry: attempt.retry,
    repeat: attempt.repeat,
    metricNames: Array.isArray(options.metrics)
      ? options.metrics.map((metric) => String(metric?.name))
      : [],
  };
  const outcome = await scoreAssertion({ options, base, testName });
  if (task) task.meta.verdict = [...(task.meta.verdict ?? []), outcome.record];
  return outcome;
}

/** The fields of a record that do not depend on how the case ended. */
type RecordBase = Omit<VerdictCaseRecord, "outcome" | "result" | "error" | "runStatus">;

/** Scores the case and decides its outcome: scored, unscored, or a configuration error. */
async function scoreAssertion(options: {
  options: RunAssertionOptions;
  base: RecordBase;
  testName: string | null;
}): Promise<AssertionOutcome> {
  const { base, testName } = options;
  const { testCase, metrics, task } = options.options;
  const env = options.options.options.env ?? process.env;
  let evaluation: Awaited<ReturnType<typeof evaluate>>;
  let scheduler: Awaited<ReturnType<typeof getWorkerScheduler>>;
  let ignoreErrors: boolean;
  let judgeTexts: JudgeText[] = [];
  try {
    const settings = readTestRunSettings({ env });
    const chosen = { ...settings, ...withoutUndefined(options.options.options) };
    ignoreErrors = chosen.ignoreErrors;
    scheduler = await getWorkerScheduler({
      maxConcurrent: chosen.maxConcurrent,
      cache: chosen.cache,
      env,
    });
    if (chosen.dryRun) {
      // A dry run asks no judge: the case records what it would spend, and passes.
      const { estimateTestCase } = await import("../evaluate/dry-run/estimate-run.ts");
      const estimate = await estimateTestCase({
        testCase,
        metrics,
        scheduler,
        repeat: chosen.repeat,
        env,
      });
      return {
        record: {
          ...base,
          outcome: "passed",
          result: null,
          error: null,
          runStatus: "completed",
          estimate,
        },
        result: null,
        error: null,
        failed: false,
      };
    }
    const signal = (task?.context as { signal?: AbortSignal } | undefined)?.signal;
    // The judge's prompts and answers travel with the record to the process that stores it.
    const keepTexts: RunReporter = {
      onEvent: (event) => {
        if (event.type === "test-case-end") judgeTexts = event.judgeTexts ?? [];
      },
    };
    evaluation = await evaluate({
      reporters: [keepTexts],
      // Named after its test before it is scored, so that its errors name it as its result
      // does ("needs actualOutput on test case "refund answer""), not "#1".
      testCases: [namedAfterTest({ testCase, testName, caseIndex: base.caseIndex })],
      metrics,
      scheduler,
      // Errors never stop the shared scheduler: each assertion is on its own, like a test.
      ignoreErrors: true,
      skipOnMissingParams: chosen.skipOnMissingParams,
      repeat: chosen.repeat,
      ...(chosen.verbose === undefined ? {} : { verbose: chosen.verbose }),
      display: "none",
      showProgress: false,
      handleInterrupt: false,
      store: false,
      env,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    const info = describeError(failure);
    // A rejected key or an unknown model is configuration, like a missing key: the reporter
    // prints it once and the run ends "usage".
    const configuration =
      info.code === "CONFIG" ||
      (failure instanceof JudgeCallError && failure.kind === "configuration");
    const outcome = configuration ? "config-error" : "unscored";
    return {
      record: { ...base, outcome, result: null, error: info, runStatus: "failed" },
      result: null,
      error: configuration ? withoutTrace(failure) : failure,
      failed: true,
    };
  }
  const status = evaluation.summary.status;
  const result = evaluation.testResults[0] ?? null;
  if (result === null) {
    const stop =
      scheduler.stoppedBy ??
      new EvalError(
        "ABORTED",
        "The case was not scored: its evaluation was cancelled (the test timed out or the run was interrupted).",
      );
    const error = describeError(stop);
    return {
      record: { ...base, outcome: "unscored", result: null, error, runStatus: status },
      result: null,
      error: stop,
      failed: true,
    };
  }
  const outcome = outcomeOfResult(result);
  const failed =
    outcome === "failed" ||
    (outcome === "errored" && (!ignoreErrors || hasThresholdFailure(result)));
  return {
    record: {
      ...base,
      outcome,
      result,
      error: null,
      runStatus: status,
      ...(judgeTexts.length > 0 ? { judgeTexts } : {}),
    },
    result,
    error: null,
    failed,
  };
}

/**
 * A configuration error as each test throws it: the same class and fields, its message alone
 * as the stack and no cause. Every test of the suite meets it, and where verdict's code threw
 * it says nothing the message does not.
 */
function withoutTrace(error: Error): Error {
  const short = Object.create(
    Object.getPrototypeOf(error),
    Object.getOwnPropertyDescriptors(error),
  ) as Error;
  Object.defineProperty(short, "stack", {
    value: `${error.name}: ${error.message}`,
    configurable: true,
    writable: true,
  });
  delete short.cause;
  return short;
}

/** The case with its test's name (and its place, for a test's second case) unless it has one. */
function namedAfterTest(options: {
  testCase: LLMTestCase | LLMTestCaseFields;
  testName: string | null;
  caseIndex: number;
}): LLMTestCase | LLMTestCaseFields {
  const { testCase, testName, caseIndex } = options;
  if (testName === null || typeof testCase !== "object" || testCase === null) return testCase;
  if (typeof testCase.name === "string" && testCase.name !== "") return testCase;
  return { ...testCase, name: caseIndex === 0 ? testName : `${testName} (case ${caseIndex + 1})` };
}

function withoutUndefined(options: AssertTestOptions) {
  const chosen: Partial<{
    maxConcurrent: number;
    cache: CacheMode;
    ignoreErrors: boolean;
    skipOnMissingParams: boolean;
    verbose: boolean;
    repeat: number;
  }> = {};
  if (options.maxConcurrent !== undefined) chosen.maxConcurrent = options.maxConcurrent;
  if (options.cache !== undefined) chosen.cache = options.cache;
  if (options.ignoreErrors !== undefined) chosen.ignoreErrors = options.ignoreErrors;
  if (options.skipOnMissingParams !== undefined) {
    chosen.skipOnMissingParams = options.skipOnMissingParams;
  }
  if (options.verbose !== undefined) chosen.verbose = options.verbose;
  if (options.repeat !== undefined) chosen.repeat = options.repeat;
  return chosen;
}
