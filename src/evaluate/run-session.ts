import { BudgetExhaustedError } from "../errors/budget-exhausted-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { MissingTestCaseParamsError } from "../errors/missing-test-case-params-error.ts";
import type { MetricRunResult } from "../metrics/metric-run-result.ts";
import { describeBudgetStop, resumeEvaluateHint } from "../report/describe-budget-stop.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { JudgeText, JudgeTextMode } from "../results/judge-text.ts";
import type { MetricData } from "../results/metric-data.ts";
import { decideRunStatus } from "../results/run-status.ts";
import { snapshotSpending, spendingSince } from "../results/spending.ts";
import { RunTally } from "../results/summarize-run.ts";
import { formatShard, parseShard } from "../store/run-shards.ts";
import { spentBefore, summariseBudget } from "./budget/budget-summary.ts";
import { BudgetLedger } from "./budget/judge-budget.ts";
import { cancelOnInterrupt } from "./cancel-on-interrupt.ts";
import { createRunScheduler } from "./create-run-scheduler.ts";
import { defaultReporters } from "./default-reporters.ts";
import { type RunOptions, resolveJudgeTextMode } from "./run-options.ts";
import { RunRecorder } from "./run-recorder.ts";
import type { JudgeScheduler } from "./scheduler.ts";

/** What a run's cases use while they are scored. */
export interface RunSession {
  readonly runId: string;
  /** The judge transport every metric of the run goes through. */
  readonly scheduler: JudgeScheduler;
  /** Aborted when the run is cancelled. */
  readonly signal: AbortSignal;
  /** What the run keeps of its judge's prompts and answers: pass it to `metric.run`. */
  readonly judgeText: JudgeTextMode;
  /**
   * Applies the run's error policy to one trial's metric outcomes and reports the kept ones:
   * `kept` holds each outcome's data, or `null` when it was left out (skipped for missing
   * params, or the run stopped), and `metricsData` the kept data alone, in order (the trial's
   * `metricsData`). When `stopped`, the case must not be finished.
   */
  keepOutcomes(options: { index: number; trial: number; outcomes: readonly MetricRunResult[] }): {
    kept: Array<MetricData | null>;
    metricsData: MetricData[];
    stopped: boolean;
  };
  /**
   * Records a finished case: stored at once (with the judge texts of the outcomes
   * `keepOutcomes` kept for it), then reported; resolves once stored.
   */
  finishCase(result: TestResult): Promise<void>;
  /** Stops the run after an error that is not a metric result; evaluate() then throws it. */
  fail(error: Error): void;
}

/** What a kind of run (test cases, or goldens through an application) brings to {@link runSession}. */
export interface RunPlan {
  options: RunOptions;
  /** When the run began (`Date.now()` on entering evaluate()), for its duration. */
  startedAt: number;
  /** Cases in the run. */
  total: number;
  /** One per case: what a resumed run compares to reuse a stored result. */
  fingerprintOf: (index: number) => string;
  /** Metric names announced at the start. */
  metricNames: string[];
  /** The run's configuration, stored with it. */
  config: Record<string, unknown>;
  /** Scores case `index` and finishes it through the session (or stops). */
  scoreCase: (index: number, session: RunSession) => Promise<void>;
  /**
   * For cases that come one at a time (an iterable of test cases): loads the next case and
   * resolves with its index, or `null` when there is none left. `total` is then 0: the run's
   * total grows as cases come (`totalFinal: false` until the last). Not with shards, resume
   * or batches.
   */
  nextCase?: () => Promise<number | null>;
  /**
   * Asked after the last case of a run that was not stopped, with the results a resumed run
   * reused (the plan sees the others as it finishes them): an error fails the run.
   */
  checkFinished?: (reused: readonly TestResult[]) => Error | null;
}

/**
 * The cases of a shard: shard i of n runs the i-th of n consecutive, near-equal blocks (the
 * first cases go to shard 1); without a shard, every case.
 */
export function shardIndices(options: {
  total: number;
  shard: { index: number; count: number } | null;
}): number[] {
  const { total, shard } = options;
  const start = shard === null ? 0 : Math.floor(((shard.index - 1) * total) / shard.count);
  const end = shard === null ? total : Math.floor((shard.index * total) / shard.count);
  return Array.from({ length: end - start }, (_, offset) => start + offset);
}

/** Errors that mean "the run stopped", not "this metric failed". */
function isRunStop(error: Error | null): boolean {
  return (
    (error instanceof JudgeCallError && error.quotaExhausted) ||
    error instanceof BudgetExhaustedError ||
    (error instanceof EvalError && error.code === "ABORTED")
  );
}

/**
 * Runs the cases of a plan the way every evaluate() run goes, in four steps: open (store,
 * resume, scheduler, cancellation), dispatch (a window of concurrent cases on one shared
 * judge scheduler), record (each finished case stored and reported as it finishes), and
 * summarise (status, summary, the message on how to resume).
 */
export async function runSession(plan: RunPlan): Promise<EvaluationResult> {
  const run = await openSession(plan);
  try {
    await dispatchCases(run);
  } finally {
    run.detach();
  }
  return await summariseSession(run);
}

/** A run in progress: what the steps of {@link runSession} share. */
interface OpenSession {
  plan: RunPlan;
  /** The cases this process runs: all of them, or its shard's. */
  indices: readonly number[];
  recorder: RunRecorder;
  scheduler: JudgeScheduler;
  controller: AbortController;
  session: RunSession;
  /** The finished cases by index, when the run keeps them (`keepResults`). */
  results: Array<TestResult | undefined> | null;
  /** The run's totals, kept as cases finish. */
  tally: RunTally;
  /**
   * The results reused from the resumed run, for `checkFinished` and, in a run that keeps no
   * results, for the `run-end` event (none otherwise).
   */
  reused: TestResult[];
  pending: number[];
  /** Cases taken from `nextCase` so far. */
  pulled: number;
  spentBefore: ReturnType<typeof snapshotSpending>;
  fatal: { error: Error | null };
  /** Removes the Ctrl-C and signal listeners. */
  detach: () => void;
}

async function openSession(plan: RunPlan): Promise<OpenSession> {
  const { options } = plan;
  const display = options.display ?? "all";
  const shard = options.shard === undefined ? null : parseShard(options.shard);
  const indices = shardIndices({ total: plan.total, shard });
  const recorder = await RunRecorder.open({
    shard,
    store: options.store,
    env: options.env ?? process.env,
    identifier: options.identifier ?? null,
    reporters: [
      ...defaultReporters({ display, showProgress: options.showProgress }),
      ...(options.reporters ?? []),
    ],
    onProgress: options.onProgress,
    onStoreFailure: "stop",
    resume: options.resume ?? false,
    startedAt: plan.startedAt,
  });
  const controller = new AbortController();
  let scheduler: JudgeScheduler;
  let reused: Map<number, TestResult>;
  // Everything that can throw comes before any listener is attached: nothing is left behind.
  try {
    scheduler =
      options.scheduler ??
      createRunScheduler({
        run: options,
        cache: recorder.judgeCache,
        leases: recorder.leases,
        signal: controller.signal,
        batchHooks: {
          batchLog: recorder.judgeBatches,
          onBatch: (progress) => recorder.recordBatch(progress),
        },
        onWarning: (message) => recorder.warn(message),
      });
    reused = await recorder.start({
      config: shard === null ? plan.config : { ...plan.config, shard: formatShard(shard) },
      fingerprintOf: plan.fingerprintOf,
      ...(shard === null ? {} : { indices: new Set(indices) }),
    });
  } catch (error) {
    await recorder.close();
    throw error;
  }
  // A resumed run's budget counts what its earlier parts spent (a shared scheduler's budget
  // is its owner's to count).
  const { budget } = scheduler;
  if (options.scheduler === undefined && budget instanceof BudgetLedger) {
    const earlier = recorder.resumedSummary;
    if (earlier !== null) budget.addSpent(spentBefore(earlier));
  }

  const detach = cancelOnInterrupt({
    controller,
    signal: options.signal,
    handleInterrupt: options.handleInterrupt ?? true,
  });
  recorder.announce({
    totalTestCases: indices.length,
    resumedTestCases: reused.size,
    metricNames: plan.metricNames,
    ...(plan.nextCase === undefined ? {} : { totalFinal: false }),
    ...(options.keepResults === false ? { keepsResults: false } : {}),
  });
  const run: OpenSession = {
    plan,
    indices,
    recorder,
    scheduler,
    controller,
    session: undefined as unknown as RunSession,
    results: options.keepResults === false ? null : new Array<TestResult | undefined>(plan.total),
    tally: new RunTally(),
    reused:
      plan.checkFinished === undefined && options.keepResults !== false
        ? []
        : [...reused.values()].sort((left, right) => left.index - right.index),
    pending: indices.filter((index) => !reused.has(index)),
    pulled: 0,
    spentBefore: snapshotSpending(scheduler.stats),
    fatal: { error: null },
    detach,
  };
  for (const [index, result] of reused) {
    run.tally.add(result);
    if (run.results !== null) run.results[index] = result;
  }
  run.session = createSession(run);
  return run;
}

/** The session a plan's `scoreCase` works through: the error policy and the recording of cases. */
function createSession(run: OpenSession): RunSession {
  const { plan, recorder, scheduler, controller } = run;
  const { options } = plan;
  const judgeText = resolveJudgeTextMode(options);
  // The judge texts of cases being scored, by index, until they finish: only cases in flight
  // hold theirs, so a run's memory does not grow with its judge's prompts.
  const pendingTexts = new Map<number, Map<string, string>>();
  const keepTexts = (index: number, outcome: MetricRunResult) => {
    if (outcome.judgeTexts === undefined || outcome.judgeTexts.length === 0) return;
    let texts = pendingTexts.get(index);
    if (texts === undefined) {
      texts = new Map();
      pendingTexts.set(index, texts);
    }
    for (const { hash, text } of outcome.judgeTexts) texts.set(hash, text);
  };
  // A case's texts, taken as it finishes or stops. Its map is emptied, not only dropped: a
  // long-lived Map that keeps adding and deleting entries leaves each table it outgrows
  // pointing at the entries it held, and once one of those tables is in V8's old generation
  // it keeps every later one alive through young collections until a full one, with every
  // case's prompts in them. Emptied, what is left of a case there is an empty map.
  const takeTexts = (index: number): JudgeText[] => {
    const texts = pendingTexts.get(index);
    if (texts === undefined) return [];
    pendingTexts.delete(index);
    const taken = [...texts].map(([hash, text]) => ({ hash, text }));
    texts.clear();
    return taken;
  };
  // Stopping goes through this run's own signal: a scheduler shared with other runs (the
  // `scheduler` option) must stay usable after one of them fails.
  const fail = (error: Error) => {
    run.fatal.error ??= error;
    controller.abort(new EvalError("ABORTED", `The run stopped after an error: ${error.message}`));
  };
  return {
    runId: recorder.runId,
    scheduler,
    signal: controller.signal,
    judgeText,
    keepOutcomes: ({ index, trial, outcomes }) => {
      let stopped = false;
      const kept = outcomes.map((outcome): MetricData | null => {
        const { data, error } = outcome;
        if (error && isRunStop(error)) {
          stopped = true;
          return null;
        }
        if (error instanceof MissingTestCaseParamsError && options.skipOnMissingParams) {
          return null;
        }
        // A rejected key or an unknown model fails every case alike: ignoreErrors does not
        // cover it, the run stops and evaluate() throws it once.
        const misconfigured = error instanceof JudgeCallError && error.kind === "configuration";
        if (error && (misconfigured || !options.ignoreErrors)) {
          stopped = true;
          fail(error);
          return null;
        }
        recorder.recordMetric({ index, trial, metric: data });
        keepTexts(index, outcome);
        return data;
      });
      if (stopped) takeTexts(index);
      // Usually nothing is left out, and `kept` is the list itself: one made by `filter` has
      // room for 17, which a run that keeps its results holds for every case.
      const metricsData = kept.includes(null)
        ? kept.filter((data) => data !== null)
        : (kept as MetricData[]);
      return { kept, metricsData, stopped };
    },
    finishCase: async (result) => {
      run.tally.add(result);
      if (run.results !== null) run.results[result.index] = result;
      await recorder.recordCase({
        result,
        fingerprint: plan.fingerprintOf(result.index),
        judgeTexts: takeTexts(result.index),
        spent: { judgeCalls: scheduler.stats.judgeCalls, costUsd: scheduler.stats.costUsd },
      });
    },
    fail,
  };
}

const isStopped = (run: OpenSession) =>
  run.controller.signal.aborted || run.scheduler.stoppedBy !== null;

/**
 * Scores the pending cases a window at a time, so prompts are built close to dispatch and a
 * huge suite does not sit in memory as pending requests. With batches, every case is in the
 * window: each step of all of them makes one batch.
 */
async function dispatchCases(run: OpenSession): Promise<void> {
  const { pending } = run;
  const { options, nextCase } = run.plan;
  const batched = options.batch !== undefined && options.batch !== false;
  const window = batched ? pending.length : Math.max(8, 2 * (options.maxConcurrent ?? 20));
  const next = nextCase === undefined ? listedCases(pending) : streamedCases(run, nextCase);
  const worker = async () => {
    while (!isStopped(run)) {
      let index: number | null;
      try {
        index = await next();
      } catch (error) {
        // The case source failed (an invalid case without ignoreErrors, a reader that threw).
        run.session.fail(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (index === null) return;
      try {
        await run.plan.scoreCase(index, run.session);
      } catch (error) {
        // Not a metric failure (those are results): the store or a reporter broke. Stop,
        // keep what finished, and report it.
        run.session.fail(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };
  const workers = nextCase === undefined ? Math.min(window, pending.length) : window;
  await Promise.all(Array.from({ length: workers }, worker));
}

/** The next case of a run whose cases are known: the pending ones, in order. */
function listedCases(pending: readonly number[]): () => Promise<number | null> {
  let next = 0;
  return async () => (next < pending.length ? (pending[next++] as number) : null);
}

/**
 * The next case of a run whose cases come one at a time: taken one after another (never two
 * at once from the source), each growing the run's total; the last says the total is final.
 */
function streamedCases(
  run: OpenSession,
  nextCase: () => Promise<number | null>,
): () => Promise<number | null> {
  let chain: Promise<number | null> = Promise.resolve(0);
  let ended = false;
  return () => {
    const taken = chain.then(async () => {
      if (ended) return null;
      const index = await nextCase();
      if (index === null) {
        ended = true;
        run.recorder.updateTotal({ totalTestCases: run.pulled, totalFinal: true });
        return null;
      }
      run.pulled += 1;
      run.recorder.updateTotal({ totalTestCases: run.pulled, totalFinal: false });
      return index;
    });
    chain = taken.catch(() => {
      ended = true;
      return null;
    });
    return taken;
  };
}

/** Ends the run: its status, the stored summary, the message on how to resume; throws a fatal error. */
async function summariseSession(run: OpenSession): Promise<EvaluationResult> {
  const { plan, scheduler, recorder } = run;
  // Kept in index order; a run that keeps no results returns its summary only.
  const testResults =
    run.results?.filter((result): result is TestResult => result !== undefined) ?? [];
  const finishedCount = run.tally.count;
  if (!run.fatal.error && !isStopped(run) && plan.checkFinished) {
    run.fatal.error = plan.checkFinished(run.reused);
  }
  const fatal = run.fatal.error;
  const stopError = scheduler.stoppedBy;
  const status = decideRunStatus({
    failed: fatal !== null,
    quotaExhausted: stopError instanceof JudgeCallError,
    budgetExhausted: stopError instanceof BudgetExhaustedError,
    interrupted: run.controller.signal.aborted,
  });
  const total = plan.nextCase === undefined ? run.indices.length : run.pulled;
  const finished = `${finishedCount}/${total} test cases finished and stored.`;
  const identifier = plan.options.identifier ?? recorder.runId;
  const resumeHint = `Resume with evaluate({ identifier: "${identifier}", resume: true, … }).`;
  const unscored = total - finishedCount;
  const budget = await summariseBudget(scheduler.budget);
  const message =
    status === "interrupted"
      ? `Run interrupted: ${finished} ${resumeHint}`
      : status === "quota-exhausted"
        ? `${(stopError as Error).message} ${unscored} test cases were left unscored; ${finishedCount} finished and stored. ${resumeHint}`
        : status === "budget-exhausted" && budget !== undefined
          ? describeBudgetStop({
              budget,
              finished: finishedCount,
              total,
              resume: resumeEvaluateHint({ budget, finished: finishedCount, total, identifier }),
            })
          : status === "failed"
            ? `Run stopped by an error; ${finished}`
            : recorder.openWarning;
  const result = await recorder.finish({
    status,
    testResults,
    tally: run.tally,
    ...(run.results === null ? { reportedResults: run.reused } : {}),
    total,
    spending: spendingSince({ before: run.spentBefore, now: scheduler.stats }),
    message,
    budget,
  });
  if (fatal) throw fatal;
  return result;
}
