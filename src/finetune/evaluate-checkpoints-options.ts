import type { RunOptions } from "../evaluate/run-options.ts";
import type { Sleep } from "../judge/with-retries.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type { Golden, GoldenFields } from "../test-case/golden.ts";
import type { CheckpointEvaluation } from "./best-checkpoint.ts";
import type { FineTuningJobSource } from "./fine-tuning-job.ts";
import type { GenerationSettings } from "./generate-outputs.ts";

/** Options of `evaluateCheckpoints()`. */
export interface EvaluateCheckpointsOptions
  extends Omit<RunOptions, "identifier" | "resume" | "handleInterrupt"> {
  /** The fine-tuning job: an OpenAI job id (`"ftjob-…"`), or a source for another provider. */
  job: string | FineTuningJobSource;
  /** What each checkpoint answers: every golden's input is sent to the checkpoint's model. */
  goldens: ReadonlyArray<Golden | GoldenFields>;
  /** What each answer is scored with. */
  metrics: ReadonlyArray<BaseMetric<object>>;
  /** The metric that names the best checkpoint (`"toxicity"` works for `"Toxicity"`). @default the first metric */
  metricForBest?: string;
  /** The identifier of the checkpoints' runs: their trend in `verdict view`. @default `finetune:<job id>` */
  identifier?: string;
  /** How the checkpoints' models are asked (system message, temperature, prompt). */
  generation?: GenerationSettings;
  /** Time between polls of the job; grows by half after each poll that found nothing new. @default 30000 */
  pollIntervalMs?: number;
  /** The longest time between polls. @default 10 × pollIntervalMs */
  maxPollIntervalMs?: number;
  /** Failed reads of the job in a row (rate limits, server errors) before giving up. @default 8 */
  maxPollFailures?: number;
  /** How much worse than the best the final model may be before it counts, in score units. @default 0 */
  maxDrop?: number;
  /** Significance level of the paired tests between the final model and the best. @default 0.05 */
  alpha?: number;
  /**
   * Stop on Ctrl-C, SIGTERM or SIGHUP: a checkpoint's run cut short is stored as interrupted,
   * and the next watch of the job resumes it; `process.exitCode` becomes 130, 143 or 129 (128 +
   * the signal) unless a `signal` was given.
   * @default true
   */
  handleInterrupt?: boolean;
  /** Called after each checkpoint is scored (or found scored in the store). */
  onCheckpoint?: (evaluation: CheckpointEvaluation) => void;
  /** Where the tables and messages go; `null` prints nothing. @default process.stdout */
  print?: ((text: string) => void) | null;
  /** Waits between polls; inject one in tests. @default a timer the run's signal cancels */
  sleep?: Sleep;
}
