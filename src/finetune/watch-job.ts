import { setTimeout as delay } from "node:timers/promises";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { FineTuningReadError } from "../errors/fine-tuning-read-error.ts";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import { evaluate } from "../evaluate/evaluate.ts";
import { withScheduler } from "../evaluate/run-options.ts";
import type { JudgeScheduler } from "../evaluate/scheduler.ts";
import type { Sleep } from "../judge/with-retries.ts";
import { formatDuration, formatPlural } from "../report/format.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import type { Store, StoredRun } from "../store/run-store.ts";
import type { Golden } from "../test-case/golden.ts";
import type { LLMTestCase } from "../test-case/llm-test-case.ts";
import { type CheckpointEvaluation, describeCheckpoint } from "./best-checkpoint.ts";
import {
  type CheckpointMetadata,
  checkpointMetadataOf,
  epochOfStep,
  findScoredCheckpoints,
  isUnfinishedRunOf,
} from "./checkpoint-runs.ts";
import type { EvaluateCheckpointsOptions } from "./evaluate-checkpoints-options.ts";
import {
  FINISHED_JOB_STATUSES,
  type FineTuningCheckpoint,
  type FineTuningJobSource,
  type FineTuningJobState,
} from "./fine-tuning-job.ts";
import { createOutputGenerator, generateOutputs } from "./generate-outputs.ts";
import { checkpointRow, renderTrainingTable } from "./render-training-table.ts";

/** What a watch of a job gathered. */
export interface WatchState {
  /** The job as last read. */
  job: FineTuningJobState | null;
  evaluations: CheckpointEvaluation[];
  /** The results of the runs scored by this watch, by run id (there may be no store). */
  results: Map<string, TestResult[]>;
  /** Why the watch stopped before the job ended: an interruption, or a run left unscored. */
  stop: "interrupted" | "unscored" | null;
  /** What left the run unscored (its status and message). */
  stopReason: string | null;
}

interface WatchContext {
  options: EvaluateCheckpointsOptions;
  source: FineTuningJobSource;
  identifier: string;
  goldens: readonly Golden[];
  store: Store | null;
  scheduler: JudgeScheduler;
  signal: AbortSignal;
  print: ((text: string) => void) | null;
  polling: { pollIntervalMs: number; maxPollIntervalMs: number; maxPollFailures: number };
}

const defaultSleep: Sleep = ({ delayMs, signal }) =>
  delay(delayMs, undefined, signal === undefined ? {} : { signal });

/**
 * Polls the job until it ends (or the watch is interrupted), scoring each checkpoint once:
 * one found scored in the store is reused. The wait between polls grows by half after each
 * poll that found nothing new, up to the maximum, and starts again after a new checkpoint; a
 * read that failed for a retryable reason backs off (as long as the provider asked, at least).
 */
export async function watchJob(context: WatchContext): Promise<WatchState> {
  const { source, signal, print, polling } = context;
  const state: WatchState = {
    job: null,
    evaluations: [],
    results: new Map(),
    stop: null,
    stopReason: null,
  };
  const scoredBefore = await findScoredCheckpoints({
    store: context.store,
    identifier: context.identifier,
    jobId: source.jobId,
  });
  const storedSteps = [...scoredBefore.values()].flatMap(
    (run) => checkpointMetadataOf(run)?.step ?? [],
  );
  const sleep = context.options.sleep ?? defaultSleep;
  const pause = async (delayMs: number): Promise<boolean> => {
    try {
      await sleep({ delayMs, signal });
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    return !signal.aborted;
  };
  let interval = polling.pollIntervalMs;
  let failures = 0;
  let shownStatus: string | null = null;
  for (;;) {
    let job: FineTuningJobState;
    let checkpoints: FineTuningCheckpoint[];
    try {
      if (signal.aborted) break;
      // The job first: once it has ended, the list read after it holds every checkpoint.
      job = await source.getJob({ signal });
      checkpoints = await source.listCheckpoints({ signal });
      failures = 0;
    } catch (error) {
      if (signal.aborted) break;
      if (!(error instanceof FineTuningReadError) || !error.retryable) throw error;
      failures += 1;
      if (failures >= polling.maxPollFailures) {
        throw new FineTuningReadError(
          `${error.message} Gave up after ${failures} failed reads in a row: watch the job again later (checkpoints already scored are kept).`,
          { status: error.status, retryable: false, cause: error },
        );
      }
      const wait = Math.max(error.retryAfterMs ?? 0, interval);
      print?.(`${error.message} Reading it again in ${formatDuration(wait)}.\n`);
      if (!(await pause(wait))) break;
      interval = Math.min(interval * 2, polling.maxPollIntervalMs);
      continue;
    }
    state.job = job;
    if (job.status !== shownStatus) {
      shownStatus = job.status;
      print?.(
        `Job ${job.id}: ${job.status}, ${formatPlural(checkpoints.length, "checkpoint")} published.\n`,
      );
    }
    const handled = new Set(state.evaluations.map((evaluation) => evaluation.checkpoint.id));
    const fresh = checkpoints
      .filter((checkpoint) => !handled.has(checkpoint.id))
      .sort((left, right) => left.step - right.step);
    const steps = [...storedSteps, ...checkpoints.map((checkpoint) => checkpoint.step)];
    for (const checkpoint of fresh) {
      if (signal.aborted) break;
      const epoch = epochOfStep({ step: checkpoint.step, steps });
      const stored = scoredBefore.get(checkpoint.id);
      const evaluation =
        stored?.summary != null
          ? reuseRun({ checkpoint, run: stored, epoch, print })
          : await scoreCheckpoint({ context, state, checkpoint, epoch });
      if (evaluation === null) break;
      state.evaluations.push(evaluation);
      context.options.onCheckpoint?.(evaluation);
      if (!evaluation.reused) print?.(renderTrainingTable({ rows: rowsOf(state.evaluations) }));
      if (state.stop !== null) break;
    }
    if (signal.aborted) state.stop ??= "interrupted";
    if (state.stop !== null || FINISHED_JOB_STATUSES.has(job.status)) break;
    if (fresh.length > 0) interval = polling.pollIntervalMs;
    if (!(await pause(interval))) break;
    if (fresh.length === 0) interval = Math.min(interval * 1.5, polling.maxPollIntervalMs);
  }
  if (signal.aborted) state.stop ??= "interrupted";
  return state;
}

function rowsOf(evaluations: readonly CheckpointEvaluation[]) {
  return [...evaluations]
    .sort((left, right) => left.checkpoint.step - right.checkpoint.step)
    .map((evaluation) => checkpointRow(evaluation));
}

function reuseRun(options: {
  checkpoint: FineTuningCheckpoint;
  run: StoredRun;
  epoch: number | null;
  print: ((text: string) => void) | null;
}): CheckpointEvaluation {
  const { checkpoint, run } = options;
  const evaluation: CheckpointEvaluation = {
    checkpoint,
    epoch: checkpointMetadataOf(run)?.epoch ?? options.epoch,
    run,
    summary: run.summary as NonNullable<StoredRun["summary"]>,
    reused: true,
  };
  options.print?.(
    `Checkpoint ${describeCheckpoint(evaluation)} was scored before (run ${run.id}): not scored again.\n`,
  );
  return evaluation;
}

/**
 * Has the checkpoint's model answer every golden, then scores the answers in a run of its
 * own (resuming the checkpoint's unfinished run, if the latest run is one). `null` when the
 * watch was interrupted before the run could be stored.
 */
async function scoreCheckpoint(options: {
  context: WatchContext;
  state: WatchState;
  checkpoint: FineTuningCheckpoint;
  epoch: number | null;
}): Promise<CheckpointEvaluation | null> {
  const { context, state, checkpoint, epoch } = options;
  const { source, scheduler, signal, store, identifier } = context;
  const settings = context.options.generation ?? {};
  const described = describeCheckpoint({ checkpoint, epoch });
  context.print?.(
    `Scoring checkpoint ${described}: answering ${context.goldens.length} goldens.\n`,
  );
  const before = {
    calls: scheduler.stats.judgeCalls,
    reused: scheduler.stats.cacheHits + scheduler.stats.sharedCalls,
  };
  let testCases: LLMTestCase[];
  try {
    testCases = await generateOutputs({
      goldens: context.goldens,
      generator: createOutputGenerator({
        model: source.languageModel(checkpoint.model),
        name: `${source.provider}:${checkpoint.model}`,
        settings,
      }),
      transport: scheduler,
      settings,
      signal,
      concurrency: context.options.maxConcurrent ?? 20,
    });
  } catch (error) {
    if (signal.aborted) {
      state.stop = "interrupted";
      return null;
    }
    throw generationFailure({ error, described });
  }
  const finetune: CheckpointMetadata = {
    job: source.jobId,
    checkpoint: checkpoint.id,
    model: checkpoint.model,
    step: checkpoint.step,
    epoch,
    createdAt: checkpoint.createdAt,
    trainingMetrics: checkpoint.trainingMetrics,
    generation: {
      calls: scheduler.stats.judgeCalls - before.calls,
      cacheHits: scheduler.stats.cacheHits + scheduler.stats.sharedCalls - before.reused,
    },
  };
  const result = await evaluate({
    // The run's options as given; the watch brings its scheduler (made from them), store,
    // identifier, resume and signal.
    ...withScheduler(context.options, scheduler),
    testCases,
    metrics: context.options.metrics,
    identifier,
    resume: await isUnfinishedRunOf({ store, identifier, checkpoint }),
    store: store ?? false,
    metadata: { ...context.options.metadata, finetune },
    signal,
    handleInterrupt: false,
    display: context.options.display ?? "none",
    showProgress: context.options.showProgress ?? false,
  });
  const { status } = result.summary;
  if (status === "interrupted") {
    state.stop = "interrupted";
    return null;
  }
  state.results.set(result.testRunId, result.testResults);
  if (status !== "completed" || result.summary.metrics.some((metric) => metric.errored > 0)) {
    state.stop = "unscored";
    state.stopReason = `its run ${result.testRunId} ended "${status}"${result.summary.metrics.some((metric) => metric.errored > 0) ? " with judge errors" : ""}`;
  }
  const run: StoredRun = (await store?.runs.getRun(result.testRunId)) ?? {
    id: result.testRunId,
    identifier,
    status,
    startedAt: new Date().toISOString(),
    endedAt: new Date().toISOString(),
    config: { metadata: { finetune } },
    summary: result.summary,
  };
  return { checkpoint, epoch, run, summary: result.summary, reused: false };
}

/** A checkpoint that could not answer: a configuration error stays one (exit 2). */
function generationFailure(options: { error: unknown; described: string }): Error {
  const { error, described } = options;
  const failures = (error as { failures?: Array<{ error: unknown }> }).failures;
  const first = failures?.[0]?.error ?? error;
  const reason = first instanceof Error ? first.message : String(first);
  const count =
    failures === undefined
      ? ""
      : ` (${failures.length} golden${failures.length === 1 ? "" : "s"} failed)`;
  const message = `Checkpoint ${described} could not answer the goldens${count}: ${reason}`;
  if (first instanceof JudgeCallError && first.kind === "configuration") {
    return new ConfigError(message, { cause: first });
  }
  return new EvalError("FINE_TUNING", message, { cause: first });
}
