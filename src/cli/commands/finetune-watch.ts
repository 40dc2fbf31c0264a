import path from "node:path";
import { DatasetFileError } from "../../dataset/dataset-file-error.ts";
import { readGoldens } from "../../dataset/read-goldens.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { EvalError } from "../../errors/eval-error.ts";
import { JudgeCallError } from "../../errors/judge-call-error.ts";
import { interruptedExitCode } from "../../evaluate/cancel-on-interrupt.ts";
import type { CheckpointsOutcome } from "../../finetune/evaluate-checkpoints.ts";
import type { BaseMetric } from "../../metrics/base-metric.ts";
import {
  builtInMetricName,
  createNamedMetric,
  NAMES_BUILT_BY_NAME,
} from "../../metrics/metrics-by-name.ts";
import type { Golden } from "../../test-case/golden.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";

/** Options of {@link runFinetuneWatch}: the flags of `verdict finetune watch`. */
export interface FinetuneWatchOptions {
  /** The fine-tuning job, `ftjob-…`. */
  jobId: string;
  /** The goldens file (`.json`, `.jsonl` or `.csv`), relative to `cwd`. */
  goldens: string;
  /**
   * Comma-separated metric names: `toxicity`, `bias`, `relevancy`, `faithfulness`,
   * `summarization`, `pii-leakage`, `hallucination`.
   */
  metrics: string;
  metricForBest?: string | undefined;
  /** Seconds between polls of the job. @default 30 */
  pollIntervalSeconds?: number | undefined;
  /** The judge model of the metrics; `"fake"` for the fake judge. @default VERDICT_MODEL, … */
  judge?: string | undefined;
  identifier?: string | undefined;
  /** A system message sent before each golden's input. */
  system?: string | undefined;
  maxConcurrent?: number | undefined;
  ignoreErrors?: boolean | undefined;
  cache?: boolean | undefined;
  maxDrop?: number | undefined;
  alpha?: number | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default process.stdout */
  stdout?: CommandOutput | undefined;
  /** @default process.stderr */
  stderr?: CommandOutput | undefined;
}

/** Whether a checkpoint's outputs make a difference to `metric`'s score. */
const judgesOutput = (metric: BaseMetric<object>) => metric.judgedFields.includes("actualOutput");

/**
 * The metrics `--metrics` takes: those calibrate() builds by name that judge the output (the
 * contextual metrics judge only the goldens' retrieval context, the same for every checkpoint).
 */
function watchableNames(): string {
  const names = NAMES_BUILT_BY_NAME.filter((name) => {
    const metric = createNamedMetric(name);
    return !("needs" in metric) && judgesOutput(metric);
  });
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** Each `watch` outcome's exit code (SPEC §6). */
const OUTCOME_EXIT_CODES: Record<CheckpointsOutcome, number> = {
  passed: EXIT_CODES.passed,
  "final-worse": EXIT_CODES.failed,
  "job-failed": EXIT_CODES.failed,
  unscored: EXIT_CODES.unscored,
  interrupted: EXIT_CODES.interrupted,
};

/** The metrics of `--metrics`, in the order given. */
export function parseMetricList(options: {
  list: string;
  judge: string | undefined;
}): Array<BaseMetric<object>> {
  const names = options.list
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (names.length === 0) {
    throw new ConfigError(
      "--metrics needs at least one metric, e.g. --metrics toxicity,bias,relevancy.",
    );
  }
  const seen = new Set<string>();
  return names.flatMap((name) => {
    const key = builtInMetricName(name);
    if (key === null) {
      throw new ConfigError(
        `--metrics names an unknown metric "${name}": use ${watchableNames()} (comma-separated).`,
      );
    }
    if (seen.has(key)) return [];
    seen.add(key);
    const metric = createNamedMetric(
      key,
      options.judge === undefined ? {} : { model: options.judge },
    );
    if ("needs" in metric) {
      const { metric: display, option, example } = metric.needs;
      throw new ConfigError(
        `--metrics cannot build the ${display} metric from its name: it needs its \`${option}\`. Score it with evaluateCheckpoints() (verdict/finetune) and a metric object, e.g. ${example}; --metrics takes ${watchableNames()}.`,
      );
    }
    if (!judgesOutput(metric)) {
      throw new ConfigError(
        `--metrics names ${metric.name}, which judges the goldens' retrieval context, not the model's output: every checkpoint would score the same. Use ${watchableNames()}.`,
      );
    }
    return [metric];
  });
}

/**
 * `verdict finetune watch <job-id>`: scores every checkpoint of a fine-tuning job as it
 * appears (see `evaluateCheckpoints`), prints a table per checkpoint, and names the best.
 * Exits 0 when the final model is not significantly worse than the best checkpoint, 1 when it
 * is or when the job failed, 2 for a usage or configuration error, 3 when judge errors (or
 * failed reads of the job) left checkpoints unscored, and 130 on Ctrl-C, 143 on SIGTERM, 129 on SIGHUP (watch again to resume).
 * @example
 * process.exitCode = await runFinetuneWatch({ jobId: "ftjob-abc123", goldens: "goldens.json", metrics: "toxicity", cwd, env });
 */
export async function runFinetuneWatch(options: FinetuneWatchOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const metrics = parseMetricList({ list: options.metrics, judge: options.judge });
  let goldens: Golden[];
  try {
    goldens = await readGoldens({ path: path.resolve(options.cwd, options.goldens) });
  } catch (error) {
    // A goldens file that cannot be used is a usage error, like a missing one.
    if (!(error instanceof DatasetFileError)) throw error;
    stderr.write(`${error.message}\n`);
    return EXIT_CODES.usage;
  }
  const { evaluateCheckpoints } = await import("../../finetune/evaluate-checkpoints.ts");
  const pollIntervalMs = Math.round((options.pollIntervalSeconds ?? 30) * 1000);
  try {
    const result = await evaluateCheckpoints({
      job: options.jobId,
      goldens,
      metrics,
      env: options.env,
      pollIntervalMs,
      print: (text) => stdout.write(text),
      ...(options.metricForBest === undefined ? {} : { metricForBest: options.metricForBest }),
      ...(options.identifier === undefined ? {} : { identifier: options.identifier }),
      ...(options.system === undefined ? {} : { generation: { system: options.system } }),
      ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
      ...(options.ignoreErrors ? { ignoreErrors: true } : {}),
      ...(options.cache === false ? { cache: false } : {}),
      ...(options.maxDrop === undefined ? {} : { maxDrop: options.maxDrop }),
      ...(options.alpha === undefined ? {} : { alpha: options.alpha }),
    });
    // Interrupted: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP.
    return result.outcome === "interrupted"
      ? interruptedExitCode()
      : OUTCOME_EXIT_CODES[result.outcome];
  } catch (error) {
    // A rejected key or an unknown judge model: nothing can be scored until it is fixed.
    if (error instanceof JudgeCallError && error.kind === "configuration") {
      stderr.write(`${error.message}\n`);
      return EXIT_CODES.usage;
    }
    // The job could not be read for long, a checkpoint could not answer, or a judge failed:
    // checkpoints were left unscored (what was scored is stored).
    if (
      error instanceof EvalError &&
      !(error instanceof ConfigError) &&
      (error.code === "FINE_TUNING" || error.code === "JUDGE_CALL" || error.code === "JUDGE_OUTPUT")
    ) {
      stderr.write(
        `${error.message}\nCheckpoints already scored are stored: watch the job again to go on.\n`,
      );
      return EXIT_CODES.unscored;
    }
    throw error;
  }
}
