import { loadProcessEnvFiles } from "../config/load-env-files.ts";
import { ConfigError } from "../errors/config-error.ts";
import { cancelOnInterrupt } from "../evaluate/cancel-on-interrupt.ts";
import { createRunScheduler } from "../evaluate/create-run-scheduler.ts";
import { compareRuns, DEFAULT_ALPHA, type RunComparison } from "../report/compare-runs.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import { openStore } from "../store/open-store.ts";
import { readTestResults } from "../store/read-test-results.ts";
import type { Store } from "../store/run-store.ts";
import {
  type BestCheckpoint,
  type CheckpointEvaluation,
  describeBestCheckpoint,
  pickBestCheckpoint,
  resolveMetricName,
} from "./best-checkpoint.ts";
import { checkGoldensAndMetrics } from "./check-goldens-and-metrics.ts";
import { describeFinalVersusBest, finalIsWorse } from "./describe-final.ts";
import type { EvaluateCheckpointsOptions } from "./evaluate-checkpoints-options.ts";
import type { FineTuningJobState } from "./fine-tuning-job.ts";
import { createOpenAIFineTuningSource } from "./openai-fine-tuning-source.ts";
import {
  checkpointRow,
  renderTrainingTable,
  type TrainingTableRow,
} from "./render-training-table.ts";
import { type WatchState, watchJob } from "./watch-job.ts";

/**
 * How a watch ended: the final model no worse than the best (`"passed"`), significantly
 * worse (`"final-worse"`), a job that failed or was cancelled, checkpoints left unscored by
 * judge errors or an exhausted quota, or an interruption.
 */
export type CheckpointsOutcome =
  | "passed"
  | "final-worse"
  | "job-failed"
  | "unscored"
  | "interrupted";

/** What {@link evaluateCheckpoints} found. */
export interface CheckpointsResult {
  outcome: CheckpointsOutcome;
  /** The job as last read. */
  job: FineTuningJobState | null;
  identifier: string;
  /** Every checkpoint scored, now or by an earlier watch, by step. */
  checkpoints: CheckpointEvaluation[];
  best: BestCheckpoint | null;
  /** The last checkpoint of a job that succeeded: the final model. */
  final: CheckpointEvaluation | null;
  /** The final model (candidate) against the best checkpoint (baseline), when they differ. */
  comparison: RunComparison | null;
  /** What was printed last: the best checkpoint, the verdict on the final model, or why it stopped. */
  message: string;
}

const DEFAULTS = { pollIntervalMs: 30_000, maxPollFailures: 8 };

/**
 * Scores every checkpoint of a fine-tuning job as it appears: polls the job (with backoff),
 * has each new checkpoint's model answer the goldens (through the same scheduler, cache and
 * retries as the judge), scores the answers with the metrics, and stores a run per checkpoint
 * (identifier `finetune:<job>`, the checkpoint's step, epoch and model in its
 * `config.metadata.finetune`), printing a table of the checkpoints so far. When the job ends,
 * it names the best checkpoint by `metricForBest`, with its 95% intervals, and tests whether
 * the final model is significantly worse than the best (paired tests, as `verdict compare`).
 * Checkpoints already scored in the store are never scored again, so a watch stopped by
 * Ctrl-C or a crash resumes where it was when started again.
 * @example
 * const result = await evaluateCheckpoints({
 *   job: "ftjob-abc123",
 *   goldens: dataset.goldens,
 *   metrics: [new ToxicityMetric(), new AnswerRelevancyMetric()],
 *   metricForBest: "Answer Relevancy",
 * });
 * if (result.outcome === "final-worse") console.log(`Use ${result.best?.evaluation.checkpoint.model}`);
 */
export async function evaluateCheckpoints(
  options: EvaluateCheckpointsOptions,
): Promise<CheckpointsResult> {
  const checked = checkOptions(options);
  const env = options.env ?? process.env;
  loadProcessEnvFiles(env);
  const source =
    typeof options.job === "string"
      ? createOpenAIFineTuningSource({ jobId: options.job, env })
      : options.job;
  const identifier = options.identifier ?? `finetune:${source.jobId}`;
  const print =
    options.print === undefined ? (text: string) => process.stdout.write(text) : options.print;
  // Every checkpoint's run goes to one store, opened once (see openStore for its policy).
  const opened = await openStore({ store: options.store, env });
  if (opened.warning !== null) console.warn(opened.warning);
  const controller = new AbortController();
  const detach = cancelOnInterrupt({
    controller,
    signal: options.signal,
    handleInterrupt: options.handleInterrupt ?? true,
  });
  try {
    const scheduler =
      options.scheduler ??
      createRunScheduler({
        run: options,
        cache: opened.store?.judgeCache ?? null,
        leases: opened.store?.leases ?? null,
        signal: controller.signal,
      });
    print?.(
      `Watching fine-tuning job ${source.jobId} (runs under the identifier "${identifier}"): ` +
        `${checked.goldens.length} goldens, metrics ${options.metrics.map((metric) => metric.name).join(", ")}.\n`,
    );
    const state = await watchJob({
      options,
      source,
      identifier,
      goldens: checked.goldens,
      store: opened.store,
      scheduler,
      signal: controller.signal,
      print,
      polling: checked.polling,
    });
    const result = await concludeWatch({
      options,
      state,
      identifier,
      metric: checked.metricForBest,
      store: opened.store,
    });
    if (print) {
      print(renderTrainingTable({ rows: tableRows(result) }));
      print(result.message);
    }
    return result;
  } finally {
    detach();
    if (opened.owned) await opened.store?.close();
  }
}

/** Checks the options before anything runs: goldens, metrics, the metric for the best, polling. */
function checkOptions(options: EvaluateCheckpointsOptions) {
  if (options.keepResults === false && options.store === false) {
    // The final model is compared with the best checkpoint case by case, read from the store.
    throw new ConfigError(
      "evaluateCheckpoints() with keepResults: false reads each checkpoint's results back from the store: remove store: false, or keepResults: false.",
    );
  }
  const goldens = checkGoldensAndMetrics({
    goldens: options.goldens,
    metrics: options.metrics,
    caller: "evaluateCheckpoints()",
    goldensFor: ", whose inputs each checkpoint answers",
  });
  if (
    typeof options.job !== "string" &&
    (typeof options.job !== "object" || options.job === null)
  ) {
    throw new ConfigError(
      'evaluateCheckpoints() needs job: an OpenAI job id such as "ftjob-abc123", or a FineTuningJobSource.',
    );
  }
  const names = options.metrics.map((metric) => metric.name);
  const metricForBest =
    options.metricForBest === undefined
      ? (names[0] as string)
      : resolveMetricName({ wanted: options.metricForBest, names, option: "metricForBest" });
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULTS.pollIntervalMs;
  const polling = {
    pollIntervalMs,
    maxPollIntervalMs: options.maxPollIntervalMs ?? 10 * pollIntervalMs,
    maxPollFailures: options.maxPollFailures ?? DEFAULTS.maxPollFailures,
  };
  if (!(polling.pollIntervalMs > 0) || !(polling.maxPollIntervalMs >= polling.pollIntervalMs)) {
    throw new ConfigError(
      `pollIntervalMs must be more than 0 and at most maxPollIntervalMs; got ${polling.pollIntervalMs} and ${polling.maxPollIntervalMs}.`,
    );
  }
  if (!Number.isInteger(polling.maxPollFailures) || polling.maxPollFailures < 1) {
    throw new ConfigError(
      `maxPollFailures must be a whole number of at least 1; got ${polling.maxPollFailures}.`,
    );
  }
  return { goldens, metricForBest, polling };
}

/** Names the best checkpoint and judges the final model once the watch ends. */
async function concludeWatch(options: {
  options: EvaluateCheckpointsOptions;
  state: WatchState;
  identifier: string;
  metric: string;
  store: Store | null;
}): Promise<CheckpointsResult> {
  const { state, metric } = options;
  const checkpoints = [...state.evaluations].sort(
    (left, right) => left.checkpoint.step - right.checkpoint.step,
  );
  const best = pickBestCheckpoint({ evaluations: checkpoints, metric });
  const succeeded = state.job?.status === "succeeded" && state.stop === null;
  const final = succeeded ? (checkpoints.at(-1) ?? null) : null;
  let comparison: RunComparison | null = null;
  if (final !== null && best !== null && final !== best.evaluation) {
    // Kept by the watch, or (a run that keeps no results, or one scored before) read back.
    const resultsOf = async (evaluation: CheckpointEvaluation): Promise<TestResult[]> => {
      const kept = state.results.get(evaluation.run.id);
      if (kept !== undefined) return kept;
      const read: TestResult[] = [];
      if (options.store === null) return read;
      for await (const stored of readTestResults(options.store, evaluation.run.id)) {
        read.push(stored.result);
      }
      return read;
    };
    comparison = compareRuns({
      baseline: { run: best.evaluation.run, results: await resultsOf(best.evaluation) },
      candidate: { run: final.run, results: await resultsOf(final) },
      maxDrop: options.options.maxDrop ?? 0,
      alpha: options.options.alpha ?? DEFAULT_ALPHA,
    });
  }
  const worse = finalIsWorse({ comparison, metric });
  const outcome: CheckpointsOutcome =
    state.stop === "interrupted"
      ? "interrupted"
      : state.stop === "unscored"
        ? "unscored"
        : state.job !== null && state.job.status !== "succeeded"
          ? "job-failed"
          : worse
            ? "final-worse"
            : "passed";
  const bestText =
    best === null ? `No checkpoint has a score on ${metric} yet.\n` : describeBestCheckpoint(best);
  const message = `${bestText}${describeFinalVersusBest({ outcome, state, best, final, comparison, metric, identifier: options.identifier })}`;
  return {
    outcome,
    job: state.job,
    identifier: options.identifier,
    checkpoints,
    best,
    final,
    comparison,
    message,
  };
}

function tableRows(result: CheckpointsResult): TrainingTableRow[] {
  return result.checkpoints.map((evaluation) => {
    const notes = [
      evaluation === result.best?.evaluation ? "best" : "",
      evaluation === result.final ? "final" : "",
    ].filter((note) => note !== "");
    return checkpointRow(evaluation, notes.join(", "));
  });
}
