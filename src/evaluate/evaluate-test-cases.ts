import { randomUUID } from "node:crypto";
import { ConfigError } from "../errors/config-error.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { describeTestCase, toTestCase } from "../test-case/llm-test-case.ts";
import { checkBudgetJudges } from "./budget/check-budget-judges.ts";
import { buildTestResult, fingerprintTestCase } from "./build-test-result.ts";
import { type CheckedCase, checkTestCases, firstInvalidCase } from "./check-test-cases.ts";
import { finishInvalidCase } from "./finish-invalid-case.ts";
import { JudgeResolver } from "./judge-resolver.ts";
import { runMetrics } from "./run-metrics.ts";
import { checkRunOptions, describeRunOptions, type RunOptions } from "./run-options.ts";
import { type RunSession, runSession } from "./run-session.ts";

/** A test case as evaluate() takes it. */
type TestCaseInput = LLMTestCase | LLMTestCaseFields;

/** Options of `evaluate()` over test cases. */
export interface EvaluateOptions extends RunOptions {
  /**
   * The cases: an array, or an iterable or async iterable (a generator reading a log file, a
   * database cursor) whose cases are checked and scored as they come, never all held at once:
   * with `keepResults: false`, a run of any size in bounded memory. An iterable cannot be
   * sharded, resumed or batched (those need every case up front).
   */
  testCases: ReadonlyArray<TestCaseInput> | Iterable<TestCaseInput> | AsyncIterable<TestCaseInput>;
  metrics: ReadonlyArray<BaseMetric<object>>;
  /**
   * Ask no judge: resolve to a `CostEstimate` of what the run would spend (judge calls,
   * prompt and completion tokens, cost, per metric and in total, each with the range it is
   * unsure about), counting requests the judge cache answers as free, and print it (unless
   * `display` is `"none"`). Nothing is stored. See docs/cost.md.
   * @default false
   */
  dryRun?: boolean;
}

/**
 * evaluate() over test cases: checks them, resolves the judges, and runs the cases through
 * the engine (`runSession`). Loaded by `evaluate()` on its first call.
 */
export async function evaluateTestCases(options: EvaluateOptions): Promise<EvaluationResult> {
  const startedAt = Date.now();
  const metrics = checkEvaluateOptions(options);
  if (!Array.isArray(options.testCases)) {
    return evaluateStreamedCases({
      options,
      cases: options.testCases as Iterable<TestCaseInput> | AsyncIterable<TestCaseInput>,
      metrics,
      startedAt,
    });
  }
  const checked = await checkListedCases(options.testCases, options);
  const repeat = options.repeat ?? 1;
  const judges = new JudgeResolver(options.env ?? process.env);
  await judges.resolve(metrics);
  checkBudgetJudges({
    budget: options.budget,
    judges: metrics.map((metric) => judges.judgeOf(metric)),
  });
  const described = judges.describe(metrics);
  return runSession({
    options,
    startedAt,
    total: checked.length,
    fingerprintOf: (index) => fingerprintOfCase({ entry: checked[index], described, repeat }),
    metricNames: metrics.map((metric) => metric.name),
    config: {
      metrics: described,
      testCases: checked.length,
      ...describeRunOptions(options),
      repeat,
    },
    scoreCase: (index, session) =>
      scoreTestCase({
        entry: checked[index] as CheckedCase<LLMTestCase>,
        index,
        session,
        metrics,
        repeat,
        judges,
        verbose: options.verbose,
      }),
  });
}

/**
 * Checks every test case of a list before anything runs: without `ignoreErrors`, the first
 * invalid one is thrown; with it, invalid cases are kept as such (never sent to a judge).
 */
export async function checkListedCases(
  testCases: ReadonlyArray<TestCaseInput>,
  options: { ignoreErrors?: boolean | undefined },
): Promise<Array<CheckedCase<LLMTestCase>>> {
  const checked = await checkTestCases({
    values: testCases,
    make: (value) => toTestCase(value as LLMTestCaseFields),
    kind: "Test case",
    list: "testCases",
  });
  if (!options.ignoreErrors) {
    const invalid = firstInvalidCase(checked, "Test case");
    if (invalid) throw invalid;
  }
  return checked;
}

/** What a resumed run compares to reuse a case's stored result. */
function fingerprintOfCase(options: {
  entry: CheckedCase<LLMTestCase> | undefined;
  described: ReadonlyArray<Record<string, unknown>>;
  repeat: number;
}): string {
  const testCase = options.entry?.testCase ?? null;
  // An invalid case is checked again on every run, never reused from a stored one.
  return testCase === null
    ? `invalid:${randomUUID()}`
    : fingerprintTestCase({ testCase, metrics: options.described, repeat: options.repeat });
}

/** Scores one checked case with every metric, `repeat` times, and finishes it. */
async function scoreTestCase(options: {
  entry: CheckedCase<LLMTestCase>;
  index: number;
  session: RunSession;
  metrics: ReadonlyArray<BaseMetric<object>>;
  repeat: number;
  judges: JudgeResolver;
  verbose: boolean | undefined;
}): Promise<void> {
  const { entry, index, session, metrics, repeat, judges } = options;
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
          judgeText: session.judgeText,
          testCaseName,
          ...(options.verbose !== undefined ? { verbose: options.verbose } : {}),
        }),
    });
    const { metricsData, stopped } = session.keepOutcomes({ index, trial, outcomes });
    if (stopped) return;
    trials.push({ trial, metricsData });
  }
  const durationMs = Math.round(performance.now() - caseStartedAt);
  await session.finishCase(buildTestResult({ testCase, index, trials, repeat, durationMs }));
}

/**
 * evaluate() over an (async) iterable: each case is taken, checked and scored as it comes,
 * and forgotten once finished, so the run never holds the cases.
 */
async function evaluateStreamedCases(options: {
  options: EvaluateOptions;
  cases: Iterable<TestCaseInput> | AsyncIterable<TestCaseInput>;
  metrics: ReadonlyArray<BaseMetric<object>>;
  startedAt: number;
}): Promise<EvaluationResult> {
  const { metrics, startedAt } = options;
  const run = options.options;
  const refused = (["shard", "resume", "batch"] as const).filter(
    (name) => run[name] !== undefined && run[name] !== false,
  );
  if (refused.length > 0) {
    throw new ConfigError(
      `${refused.join(", ")} need${refused.length === 1 ? "s" : ""} every test case up front: pass testCases as an array (or leave out ${refused.join(", ")}).`,
    );
  }
  const source =
    Symbol.asyncIterator in options.cases
      ? options.cases[Symbol.asyncIterator]()
      : (options.cases as Iterable<TestCaseInput>)[Symbol.iterator]();
  const repeat = run.repeat ?? 1;
  const judges = new JudgeResolver(run.env ?? process.env);
  await judges.resolve(metrics);
  checkBudgetJudges({
    budget: run.budget,
    judges: metrics.map((metric) => judges.judgeOf(metric)),
  });
  const described = judges.describe(metrics);
  // The cases taken and not finished yet: a window of them, never the whole run.
  const waiting = new Map<number, CheckedCase<LLMTestCase>>();
  let taken = 0;
  try {
    return await runSession({
      options: run,
      startedAt,
      total: 0,
      nextCase: async () => {
        const next = await source.next();
        if (next.done) return null;
        const index = taken++;
        const [entry] = await checkTestCases({
          values: [next.value],
          make: (value) => toTestCase(value as LLMTestCaseFields),
          kind: "Test case",
          list: "testCases",
          firstIndex: index,
        });
        const checked = entry as CheckedCase<LLMTestCase>;
        if (!run.ignoreErrors) {
          const invalid = firstInvalidCase([checked], "Test case");
          if (invalid) throw invalid;
        }
        waiting.set(index, checked);
        return index;
      },
      fingerprintOf: (index) => fingerprintOfCase({ entry: waiting.get(index), described, repeat }),
      metricNames: metrics.map((metric) => metric.name),
      config: {
        metrics: described,
        testCases: null,
        ...describeRunOptions(run),
        repeat,
      },
      scoreCase: async (index, session) => {
        const entry = waiting.get(index) as CheckedCase<LLMTestCase>;
        try {
          await scoreTestCase({
            entry,
            index,
            session,
            metrics,
            repeat,
            judges,
            verbose: run.verbose,
          });
        } finally {
          waiting.delete(index);
        }
      },
    });
  } finally {
    // A run that stopped early lets the source go (a generator closes its file).
    await source.return?.();
  }
}

/** Checks evaluate()'s own options before anything runs; returns the metrics. */
export function checkEvaluateOptions(options: EvaluateOptions): ReadonlyArray<BaseMetric<object>> {
  const cases = options.testCases as unknown;
  const iterable =
    typeof cases === "object" &&
    cases !== null &&
    (Symbol.iterator in cases || Symbol.asyncIterator in cases);
  if (!Array.isArray(cases) && !iterable) {
    throw new ConfigError(
      "evaluate() needs testCases: an array of LLMTestCase or plain objects (or an iterable of them).",
    );
  }
  if (!Array.isArray(options.metrics) || options.metrics.length === 0) {
    throw new ConfigError(
      "evaluate() needs metrics: an array with at least one metric, e.g. [new ToxicityMetric()].",
    );
  }
  checkRunOptions(options);
  return options.metrics;
}
