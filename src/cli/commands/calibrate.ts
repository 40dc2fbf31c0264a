import path from "node:path";
import {
  type CalibrationMetricName,
  calibrate,
  isCalibrationMetricName,
} from "../../calibrate/calibrate.ts";
import { DatasetFileError } from "../../dataset/dataset-file-error.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { JudgeCallError } from "../../errors/judge-call-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import { interruptedExitCode } from "../../evaluate/cancel-on-interrupt.ts";
import type { JudgeModel } from "../../judge/judge-model.ts";
import type { BaseMetric } from "../../metrics/base-metric.ts";
import { renderCalibrationConsoleReport } from "../../report/calibration/calibration-console-report.ts";
import { renderCalibrationHtmlReport } from "../../report/calibration/calibration-html-report.ts";
import { renderCalibrationJson } from "../../report/calibration/calibration-json-report.ts";
import { writeReportFile } from "../../report/write-report-file.ts";
import type { CalibrationReport } from "../../results/calibration-report.ts";
import { openStore } from "../../store/open-store.ts";
import type { Store } from "../../store/run-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import { type OutputRequest, resolveOutputTargets } from "../output-targets.ts";
import { loadMetricModule } from "./load-metric-module.ts";

/** Options of {@link runCalibrate}: the flags of `verdict calibrate`. */
export interface CalibrateCommandOptions {
  /** A built-in metric's name, or a module exporting a metric: `./metrics.ts#politeness`. */
  metric: CalibrationMetricName | string;
  /** The labelled data file (`--data FILE`, or the command's argument). */
  data: string;
  inputField?: string | undefined;
  outputField?: string | undefined;
  labelField?: string | undefined;
  idField?: string | undefined;
  positiveLabel?: string | undefined;
  negativeLabel?: string | undefined;
  limit?: number | undefined;
  threshold?: number | undefined;
  maxExamples?: number | undefined;
  /** `--output json|html[=path]`, each a report file. */
  outputs?: readonly OutputRequest[] | undefined;
  /** The file of a single `--output`. @default `verdict-calibration.<json|html>` in `cwd` */
  outputFile?: string | undefined;
  maxConcurrent?: number | undefined;
  /** `--judge`: the judge model (`"fake"` for the built-in fake judge); a JudgeModel in tests. */
  judge?: string | JudgeModel | undefined;
  /** Reuse judge answers from earlier runs. @default true */
  cache?: boolean | undefined;
  ignoreErrors?: boolean | undefined;
  identifier?: string | undefined;
  resume?: boolean | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default the SQLite store of the verdict home folder */
  store?: Store | undefined;
  /** @default process.stdout */
  stdout?: CommandOutput | undefined;
  /** @default process.stderr */
  stderr?: CommandOutput | undefined;
  /** Show progress on stderr. @default true */
  showProgress?: boolean | undefined;
}

/** Errors that mean "fix the data, the flags or the configuration": exit 2. */
function isUsageError(error: unknown): error is Error {
  return (
    error instanceof ConfigError ||
    error instanceof DatasetFileError ||
    error instanceof StoreError ||
    (error instanceof JudgeCallError && error.kind === "configuration")
  );
}

/**
 * `verdict calibrate --metric NAME --data FILE`: runs the metric over human-labelled rows
 * through `calibrate()` (the same runner as `verdict test run`: cache, resume, cost; the run
 * and the calibration stored), prints the calibration report and writes the `--output`
 * files. Returns the exit code (it never exits): 2 for bad data, flags or configuration (the
 * message names the row and field), 3 when judge errors left rows unscored, 130 when
 * interrupted (143 by SIGTERM, 129 by SIGHUP), else 0.
 * @example
 * process.exitCode = await runCalibrate({ metric: "toxicity", data: "labels.jsonl", cwd, env });
 */
export async function runCalibrate(options: CalibrateCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const usage = (message: string) => {
    stderr.write(`${message}\n`);
    return EXIT_CODES.usage;
  };
  for (const request of options.outputs ?? []) {
    if (request.format === "junit") {
      return usage(
        "verdict calibrate writes --output json or html (JUnit has no place for agreement figures).",
      );
    }
  }
  if (options.resume && !options.identifier?.trim()) {
    return usage(
      "--resume needs --identifier NAME: the name of the calibration run to finish (as given when it started).",
    );
  }
  const targets = resolveOutputTargets({
    outputs: options.outputs ?? [],
    outputFile: options.outputFile,
    cwd: options.cwd,
    defaultName: "verdict-calibration",
  });
  if (typeof targets === "string") return usage(targets);
  let store: Store | undefined = options.store;
  let where = "";
  let report: CalibrationReport;
  try {
    if (store === undefined) {
      // The calibration is what this command keeps: without its store it stops.
      const opened = await openStore({ env: options.env, cwd: options.cwd });
      if (opened.store === null) return usage(opened.failure ?? "No store to keep it in.");
      store = opened.store;
      where = ` in ${path.isAbsolute(opened.where) ? path.relative(options.cwd, opened.where) || opened.where : opened.where}`;
    }
    const builtIn = isCalibrationMetricName(options.metric);
    const metric = builtIn
      ? options.metric
      : await loadMetricModule({
          spec: options.metric,
          cwd: options.cwd,
          flag: "--metric",
          threshold: options.threshold,
          model: options.judge,
        });
    report = await calibrate({
      metric: metric as CalibrationMetricName | BaseMetric<object>,
      data: path.resolve(options.cwd, options.data),
      ...(options.inputField === undefined ? {} : { inputField: options.inputField }),
      ...(options.outputField === undefined ? {} : { outputField: options.outputField }),
      ...(options.labelField === undefined ? {} : { labelField: options.labelField }),
      ...(options.idField === undefined ? {} : { idField: options.idField }),
      ...(options.positiveLabel === undefined ? {} : { positiveLabel: options.positiveLabel }),
      ...(options.negativeLabel === undefined ? {} : { negativeLabel: options.negativeLabel }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.threshold === undefined || !builtIn ? {} : { threshold: options.threshold }),
      ...(options.maxExamples === undefined ? {} : { maxExamples: options.maxExamples }),
      ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
      ...(options.judge === undefined || !builtIn ? {} : { model: options.judge }),
      ...(options.identifier === undefined ? {} : { identifier: options.identifier }),
      cache: options.cache ?? true,
      ignoreErrors: options.ignoreErrors ?? false,
      resume: options.resume ?? false,
      showProgress: options.showProgress ?? true,
      env: options.env,
      store,
    });
  } catch (error) {
    if (!isUsageError(error)) throw error;
    // A data error names the file as the user gave it, not as it was resolved.
    return usage(error.message.replaceAll(path.resolve(options.cwd, options.data), options.data));
  } finally {
    if (options.store === undefined) await store?.close();
  }
  const shown = { ...report, data: { ...report.data, source: options.data } };
  stdout.write(renderCalibrationConsoleReport({ report: shown }));
  stdout.write(`\nStored as calibration ${report.id}\n  of run ${report.runId}${where}.\n`);
  for (const target of targets) {
    const text =
      target.format === "json"
        ? renderCalibrationJson({ report: shown })
        : renderCalibrationHtmlReport({ report: shown });
    writeReportFile({ file: target.file, text, kind: target.format === "json" ? "JSON" : "HTML" });
    stdout.write(
      `Wrote the ${target.format.toUpperCase()} calibration report to ${target.file}.\n`,
    );
  }
  // 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP: the signal that stopped it.
  if (report.status === "interrupted") return interruptedExitCode();
  return report.rows.unscored > 0 ? EXIT_CODES.unscored : EXIT_CODES.passed;
}
