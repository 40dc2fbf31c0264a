import type { DatasetFormat } from "../dataset/dataset-format.ts";
import { type LabelValue, readLabelledRows } from "../dataset/read-labelled-rows.ts";
import { ConfigError } from "../errors/config-error.ts";
import { evaluate } from "../evaluate/evaluate.ts";
import { pickRunOptions, type RunOptions } from "../evaluate/run-options.ts";
import type { ModelSpec } from "../judge/resolve-model.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import {
  type BuiltInMetricName,
  builtInMetricName,
  createNamedMetric,
  NAMES_BUILT_BY_NAME,
} from "../metrics/metrics-by-name.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import { openStore, whyRunNeedsStore } from "../store/open-store.ts";
import { parseShard } from "../store/run-shards.ts";
import { buildCalibrationReport } from "./build-calibration-report.ts";

/**
 * The built-in metrics `calibrate()` and `verdict calibrate` know by name. Role Violation,
 * Non-Advice and Misuse need an option of their own (`role`, `adviceTypes`, `domain`), which a
 * name cannot carry: calibrate them as metric objects (or, on the command line, a module).
 */
export type CalibrationMetricName = BuiltInMetricName;

/**
 * True for a name `calibrate()` knows (`"toxicity"`, `"Answer Relevancy"`, `"pii_leakage"`, …),
 * including those it then asks a metric object for.
 */
export function isCalibrationMetricName(name: string): boolean {
  return builtInMetricName(name) !== null;
}

/** Options of {@link calibrate}. */
export interface CalibrateOptions extends Omit<RunOptions, "repeat" | "display"> {
  /**
   * The metric to calibrate: `"toxicity"`, `"bias"`, `"relevancy"`, `"faithfulness"`,
   * `"summarization"`, `"pii-leakage"`, `"contextual-relevancy"`, `"contextual-precision"`,
   * `"contextual-recall"`, `"hallucination"`, or a metric object (e.g. `new ToxicityMetric({
   * threshold: 0.3, model })`, `new MisuseMetric({ domain: "financial" })`). It needs a
   * threshold. The rows carry what it judges: `expected_output`, `context`,
   * `retrieval_context` (a JSON list, or "|"-separated in a CSV cell) where the metric judges
   * them (Faithfulness and the RAG metrics), and no output where it judges none (Contextual
   * Relevancy, Precision and Recall).
   */
  metric: CalibrationMetricName | "answer-relevancy" | BaseMetric<object>;
  /** Labelled rows: a `.jsonl`, `.json` or `.csv` file, or an array of plain objects. */
  data: string | ReadonlyArray<Record<string, unknown>>;
  /** @default from the file's extension */
  format?: DatasetFormat;
  /** Field (or CSV column) of the input. @default "input" */
  inputField?: string;
  /** Field of the output the metric judges. @default "actual_output" */
  outputField?: string;
  /** Field of people's label. @default "label" */
  labelField?: string;
  /** Field naming each row (the test case's name); rows without it are `row <n>`. @default "id" */
  idField?: string;
  /**
   * The label of a positive row, compared as text: toxic (Toxicity), biased (Bias), relevant
   * (Answer Relevancy), faithful to its retrieval context (Faithfulness), a good summary of
   * its input (Summarization), no PII leaked (PII Leakage), role kept (Role Violation), no
   * inappropriate advice (Non-Advice), misuse (Misuse), relevant retrieval (Contextual
   * Relevancy), well-ranked retrieval (Contextual Precision), complete retrieval (Contextual
   * Recall), hallucinated (Hallucination).
   * @default "1"
   */
  positiveLabel?: LabelValue;
  /** The label of a negative row; given, any third value is an error naming its row. */
  negativeLabel?: LabelValue;
  /** Calibrate on the first `limit` rows only. */
  limit?: number;
  /** The judge of a metric given by name. @default VERDICT_MODEL, else the saved default */
  model?: ModelSpec;
  /** The threshold of a metric given by name. @default 0.5 */
  threshold?: number;
  /** How many wrong rows (and unscored ones) the report lists. @default 20 */
  maxExamples?: number;
  /** Text encoding of the data file. @default "utf8" */
  encoding?: BufferEncoding;
}

/** The metric of a calibration, built from a name or checked when given as an object. */
function resolveMetric(options: CalibrateOptions): BaseMetric<object> {
  const { metric } = options;
  if (typeof metric === "object" && metric !== null) {
    if (options.model !== undefined || options.threshold !== undefined) {
      throw new ConfigError(
        "calibrate() takes model and threshold only with a metric name: set them on the metric object instead, e.g. new ToxicityMetric({ threshold: 0.3, model }).",
      );
    }
    if (metric.threshold === null) {
      throw new ConfigError(
        `The metric "${metric.name}" has no threshold (score-only), so it calls no row positive or negative: give it one, e.g. threshold: 0.5.`,
      );
    }
    return metric;
  }
  const name = typeof metric === "string" ? builtInMetricName(metric) : null;
  if (name === null) {
    throw new ConfigError(
      `calibrate() cannot calibrate the metric ${JSON.stringify(metric)}: use ${NAMES_BUILT_BY_NAME.map(
        (known) => `"${known}"`,
      ).join(", ")}, or pass a metric object.`,
    );
  }
  const made = createNamedMetric(name, {
    ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
    ...(options.model === undefined ? {} : { model: options.model }),
  });
  if ("needs" in made) {
    const { metric: display, option, example, exportName } = made.needs;
    throw new ConfigError(
      `calibrate() cannot build the ${display} metric from its name: it needs its \`${option}\`. Pass a metric object instead (metric: ${example}), or on the command line a module that exports one (--metric ./metrics.ts#${exportName}).`,
    );
  }
  return made;
}

/**
 * Measures how well a metric agrees with people: runs it over labelled rows (through the same
 * runner as evaluate(): one judge scheduler, the judge cache, `identifier` + `resume`, cost
 * accounting, the run stored), then compares its calls with the labels. Returns accuracy
 * (Wilson 95% interval), precision, recall, F1, Cohen's κ (95% interval), the confusion
 * matrix, ROC AUC of the scores, the thresholds that maximise κ and F1, and the rows the
 * metric got wrong, most confident first. The report is kept in the store, linked to the run.
 *
 * The positive class is what a high score means: toxic (Toxicity), biased (Bias), misuse
 * (Misuse) and hallucinated (Hallucination) rows are positive when the metric flags them (score
 * above the threshold, the metric fails); relevant (Answer Relevancy), faithful
 * (Faithfulness), well-summarised (Summarization), PII-free (PII Leakage), in-role (Role
 * Violation) and advice-free (Non-Advice) rows, and rows whose retrieval is relevant, well
 * ranked or complete (Contextual Relevancy, Precision, Recall), when it passes them (score at
 * or above the threshold). Rows may carry `retrieval_context`, `context` and
 * `expected_output`, which go into their test cases.
 * @throws ConfigError or DatasetFileError (file, line, row, field) for data or options that
 * cannot work, before any judge call.
 * @example
 * const report = await calibrate({
 *   metric: "toxicity",
 *   data: "labels/toxicity.jsonl",   // {"input": …, "actual_output": …, "label": 1}
 *   model: "openai:gpt-4.1",
 * });
 * console.log(report.kappa, report.kappaCi, report.bestKappa?.threshold);
 */
export async function calibrate(options: CalibrateOptions): Promise<CalibrationReport> {
  if (options.keepResults === false) {
    // The rows' results are what a calibration compares with the labels.
    throw new ConfigError(
      "calibrate() compares every row's result with its label, so it keeps them: leave out keepResults: false.",
    );
  }
  const metric = resolveMetric(options);
  const maxExamples = options.maxExamples ?? 20;
  if (!Number.isSafeInteger(maxExamples) || maxExamples < 0) {
    throw new ConfigError(
      `maxExamples must be a whole number of 0 or more; got ${String(options.maxExamples)}.`,
    );
  }
  const read = await readLabelledRows({
    data: options.data,
    format: options.format,
    inputField: options.inputField,
    outputField: options.outputField,
    labelField: options.labelField,
    idField: options.idField,
    positiveLabel: options.positiveLabel,
    negativeLabel: options.negativeLabel,
    limit: options.limit,
    encoding: options.encoding,
    requiredFields: metric.requiredFields,
  });
  const names = read.rows.map((row) => row.id ?? `row ${row.index + 1}`);
  // A store the user named must open; the default one may fall back, with a warning, unless
  // the run needs it (resume).
  const env = options.env ?? process.env;
  const opened = await openStore({
    store: options.store,
    env,
    withoutStore: "no judge cache, and neither the run nor the calibration is kept",
    needed: whyRunNeedsStore({
      resume: options.resume ?? false,
      shard: options.shard === undefined ? null : parseShard(options.shard),
      env,
    }),
  });
  if (opened.warning !== null) console.warn(opened.warning);
  const { store, owned } = opened;
  try {
    // The run's options go to evaluate() as the user gave them; calibrate() sets the cases,
    // the metric, the store it opened and the display (its own report follows).
    const result = await evaluate({
      ...pickRunOptions(options),
      testCases: read.rows.map((row, index) => ({
        input: row.input,
        ...(row.actualOutput === "" ? {} : { actualOutput: row.actualOutput }),
        ...(row.expectedOutput === undefined ? {} : { expectedOutput: row.expectedOutput }),
        ...(row.context === undefined ? {} : { context: row.context }),
        ...(row.retrievalContext === undefined ? {} : { retrievalContext: row.retrievalContext }),
        name: names[index] as string,
      })),
      metrics: [metric],
      store: store ?? false,
      display: "none",
    });
    const report = buildCalibrationReport({
      result,
      names,
      metric,
      read,
      maxExamples,
      source: typeof options.data === "string" ? options.data : null,
      limit: options.limit ?? null,
    });
    await store?.calibrations?.saveCalibration(report);
    return report;
  } finally {
    if (owned) await store?.close();
  }
}
