import type { AiSdkLanguageModel } from "../judge/ai-sdk-judge.ts";

/** A fine-tuning job as the watcher reads it from its provider. */
export interface FineTuningJobState {
  id: string;
  /**
   * The provider's status. OpenAI: `"validating_files"`, `"queued"`, `"running"`,
   * `"succeeded"`, `"failed"` or `"cancelled"`.
   */
  status: string;
  /** The model being fine-tuned, when the provider says. */
  baseModel: string | null;
  /** The final model, once the job succeeded. */
  fineTunedModel: string | null;
  /** Why the job failed, when it did. */
  error: { code: string | null; message: string } | null;
}

/** One checkpoint of a fine-tuning job: a model saved during training. */
export interface FineTuningCheckpoint {
  /** The provider's id of the checkpoint. */
  id: string;
  /** The checkpoint's model, e.g. `"ft:gpt-4.1-mini-2025-04-14:acme::abc123:ckpt-step-10"`. */
  model: string;
  /** The training step it was saved at. */
  step: number;
  /** When it was saved (ISO time). */
  createdAt: string;
  /** Training metrics at that step (OpenAI: `train_loss`, `valid_loss`, …). */
  trainingMetrics: Record<string, number>;
}

/**
 * Where the watcher reads a fine-tuning job and reaches its checkpoints' models. verdict
 * brings one for OpenAI (`createOpenAIFineTuningSource`); implement it for another provider.
 * A read that may succeed later (a rate limit, a server error, a dropped connection) throws a
 * {@link FineTuningReadError} with `retryable: true`: the watcher backs off and reads again.
 */
export interface FineTuningJobSource {
  /** The job's id, e.g. `"ftjob-abc123"`. */
  readonly jobId: string;
  /** The provider's name, the prefix of generation model names (e.g. `"openai"`). */
  readonly provider: string;
  /** Reads the job's status. */
  getJob(options: { signal?: AbortSignal | undefined }): Promise<FineTuningJobState>;
  /** Lists every checkpoint published so far, in any order. */
  listCheckpoints(options: { signal?: AbortSignal | undefined }): Promise<FineTuningCheckpoint[]>;
  /** The AI SDK model that answers as a checkpoint (or as the final model). */
  languageModel(model: string): AiSdkLanguageModel;
}

/** The statuses after which a job publishes nothing more. */
export const FINISHED_JOB_STATUSES: ReadonlySet<string> = new Set([
  "succeeded",
  "failed",
  "cancelled",
]);
