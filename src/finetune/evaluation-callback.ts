import { buildTestCases, type GoldenApplication } from "../dataset/build-test-cases.ts";
import { ConfigError } from "../errors/config-error.ts";
import { evaluate } from "../evaluate/evaluate.ts";
import { pickRunOptions, type RunOptions } from "../evaluate/run-options.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import { formatScore } from "../report/format.ts";
import type { EvaluationSummary } from "../results/evaluation-result.ts";
import type { Golden, GoldenFields } from "../test-case/golden.ts";
import { resolveMetricName } from "./best-checkpoint.ts";
import { checkGoldensAndMetrics } from "./check-goldens-and-metrics.ts";
import { renderTrainingTable, type TrainingTableRow } from "./render-training-table.ts";

/** Options of {@link createEvaluationCallback}. */
export interface EvaluationCallbackOptions extends Omit<RunOptions, "identifier" | "resume"> {
  /** What the model answers at each evaluated epoch. */
  goldens: ReadonlyArray<Golden | GoldenFields>;
  /** What the answers are scored with. */
  metrics: ReadonlyArray<BaseMetric<object>>;
  /**
   * The model being trained, answering one golden: its input (and the golden), to the answer
   * as a string or `{ actualOutput, retrievalContext?, … }`. Sync or async.
   */
  generate: GoldenApplication;
  /** Scores every `every`-th epoch, counted from 1 (`2`: epochs 2, 4, 6, …). @default 1 */
  every?: number;
  /**
   * The worst mean score each metric may reach, by metric name: training stops after an epoch
   * whose mean falls below it (or rises above it, for metrics where lower is better, such as
   * Toxicity and Bias). E.g. `{ "Answer Relevancy": 0.7, Toxicity: 0.2 }`.
   */
  floor?: Readonly<Record<string, number>>;
  /**
   * A TensorFlow.js model (anything with `stopTraining`): set to `true` when a floor is
   * crossed, which ends `model.fit` after the epoch. Hand-written loops read `shouldStop`.
   */
  model?: { stopTraining: boolean };
  /** The identifier of the epochs' runs: their trend in `verdict view`. @default "training" */
  identifier?: string;
  /** Answers asked at once. @default 8 */
  concurrency?: number;
  /** Where the table goes after each scored epoch; `null` prints nothing. @default process.stdout */
  print?: ((text: string) => void) | null;
}

/** One scored epoch. */
export interface EpochEvaluation {
  /** Counted from 1 (the callback's `epoch` argument + 1). */
  epoch: number;
  /** What the training loop logged for the epoch (numbers only). */
  logs: Record<string, number>;
  /** The epoch's stored run. */
  runId: string;
  summary: EvaluationSummary;
  /** The metrics whose mean crossed their floor at this epoch. */
  belowFloor: string[];
}

/** What {@link createEvaluationCallback} returns: a TensorFlow.js callback and a loop's hook. */
export interface EvaluationCallback {
  /**
   * Call at the end of each epoch with the zero-based epoch index (as `model.fit` does) and
   * what the epoch logged. Resolves once the epoch is scored (or at once when it is skipped).
   */
  onEpochEnd(epoch: number, logs?: Readonly<Record<string, unknown>>): Promise<void>;
  /** `true` once a floor was crossed, or an epoch's run was interrupted: stop training. */
  readonly shouldStop: boolean;
  /** Why training should stop, when it should. */
  readonly stopReason: string | null;
  /** Every scored epoch so far, in order. */
  readonly history: readonly EpochEvaluation[];
}

/**
 * Scores a model while it trains, as deepeval's fine-tuning callback does: at the end of
 * every `every`-th epoch, `generate` answers each golden, the answers are scored with the
 * metrics in a stored run (identifier `"training"` unless set; the epoch and its logs in
 * `config.metadata.training`), and a table of the epochs so far is printed: what training
 * logged (the loss…) and each metric's mean score with its 95% interval. When a metric crosses
 * its `floor`, training stops: `model.stopTraining` is set for TensorFlow.js, and
 * `shouldStop` tells a hand-written loop.
 * @example
 * const callback = createEvaluationCallback({
 *   goldens, metrics: [new AnswerRelevancyMetric()],
 *   generate: (input) => answerWith(model, String(input)),
 *   every: 2, floor: { "Answer Relevancy": 0.6 }, model,
 * });
 * await model.fit(xs, ys, { epochs: 20, callbacks: callback });
 */
export function createEvaluationCallback(options: EvaluationCallbackOptions): EvaluationCallback {
  const checked = checkCallbackOptions(options);
  const history: EpochEvaluation[] = [];
  const print =
    options.print === undefined ? (text: string) => process.stdout.write(text) : options.print;
  const { model } = options;
  // The run's options as given; the callback sets the cases, metrics, identifier and metadata.
  const runOptions = pickRunOptions(options);
  let stopReason: string | null = null;
  // A loop that does not await onEpochEnd still gets its epochs scored one after another.
  let previous: Promise<void> = Promise.resolve();
  const scoreEpoch = async (epoch: number, logs: Record<string, number>) => {
    const testCases = await buildTestCases({
      goldens: checked.goldens,
      application: options.generate,
      concurrency: options.concurrency ?? 8,
    });
    const result = await evaluate({
      ...runOptions,
      testCases,
      metrics: options.metrics,
      identifier: options.identifier ?? "training",
      metadata: { ...options.metadata, training: { epoch, logs } },
      display: options.display ?? "none",
      showProgress: options.showProgress ?? false,
    });
    if (result.summary.status === "interrupted") {
      stopReason = `The run of epoch ${epoch} was interrupted.`;
      if (model) model.stopTraining = true;
      return;
    }
    const belowFloor = checked.floor.flatMap(({ metric, value }) => {
      const summary = result.summary.metrics.find((entry) => entry.name === metric);
      if (summary?.meanScore == null) return [];
      const crossed = summary.lowerIsBetter ? summary.meanScore > value : summary.meanScore < value;
      return crossed
        ? [
            `${metric} ${formatScore(summary.meanScore)} ${summary.lowerIsBetter ? ">" : "<"} floor ${formatScore(value)}`,
          ]
        : [];
    });
    history.push({ epoch, logs, runId: result.testRunId, summary: result.summary, belowFloor });
    if (belowFloor.length > 0 && stopReason === null) {
      stopReason = `Stopped after epoch ${epoch}: ${belowFloor.join(", ")}.`;
      if (model) model.stopTraining = true;
    }
    print?.(renderTrainingTable({ rows: history.map(rowOf) }));
    if (belowFloor.length > 0) print?.(`${stopReason}\n`);
  };
  return {
    onEpochEnd(epoch, logs = {}) {
      if (!Number.isInteger(epoch) || epoch < 0) {
        return Promise.reject(
          new ConfigError(
            `onEpochEnd needs the zero-based index of the epoch that ended (as model.fit passes it); got ${String(epoch)}.`,
          ),
        );
      }
      const counted = epoch + 1;
      if (counted % checked.every !== 0 || stopReason !== null) return previous;
      const numbers = Object.fromEntries(
        Object.entries(logs).filter(
          (entry): entry is [string, number] =>
            typeof entry[1] === "number" && Number.isFinite(entry[1]),
        ),
      );
      previous = previous.then(() => scoreEpoch(counted, numbers));
      return previous;
    },
    get shouldStop() {
      return stopReason !== null;
    },
    get stopReason() {
      return stopReason;
    },
    history,
  };
}

function rowOf(evaluation: EpochEvaluation): TrainingTableRow {
  return {
    epoch: evaluation.epoch,
    training: evaluation.logs,
    metrics: evaluation.summary.metrics,
    note: evaluation.belowFloor.length > 0 ? "below floor" : "",
  };
}

function checkCallbackOptions(options: EvaluationCallbackOptions) {
  const goldens = checkGoldensAndMetrics({
    goldens: options.goldens,
    metrics: options.metrics,
    caller: "createEvaluationCallback()",
    goldensFor: ", which the model answers at each scored epoch",
  });
  if (typeof options.generate !== "function") {
    throw new ConfigError(
      "createEvaluationCallback() needs generate: (input, golden) => the model's answer, called for each golden at each scored epoch.",
    );
  }
  const every = options.every ?? 1;
  if (!Number.isInteger(every) || every < 1) {
    throw new ConfigError(
      `every must be a whole number of at least 1 (epochs between scores); got ${String(options.every)}.`,
    );
  }
  const names = options.metrics.map((metric) => metric.name);
  const floor = Object.entries(options.floor ?? {}).map(([name, value]) => {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new ConfigError(
        `floor of "${name}" must be a number (a mean score); got ${String(value)}.`,
      );
    }
    return { metric: resolveMetricName({ wanted: name, names, option: "floor" }), value };
  });
  if (
    options.model !== undefined &&
    (typeof options.model !== "object" ||
      options.model === null ||
      !("stopTraining" in options.model))
  ) {
    throw new ConfigError(
      "model must be a TensorFlow.js model (an object with stopTraining); hand-written loops leave it out and read shouldStop.",
    );
  }
  return { every, floor, goldens };
}
