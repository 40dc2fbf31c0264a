import type { Store, StoredRun } from "../store/run-store.ts";
import type { FineTuningCheckpoint } from "./fine-tuning-job.ts";

/** What a checkpoint's stored run records about the checkpoint (`config.metadata.finetune`). */
export interface CheckpointMetadata {
  /** The fine-tuning job's id. */
  job: string;
  /** The checkpoint's id at the provider. */
  checkpoint: string;
  /** The checkpoint's model, which answered the goldens. */
  model: string;
  step: number;
  /**
   * The epoch the checkpoint closed, counted from 1. OpenAI saves a checkpoint at the end of
   * each epoch and says only its step, so this is the step ÷ the steps per epoch (the greatest
   * common divisor of the job's checkpoint steps).
   */
  epoch: number | null;
  /** When the provider saved it (ISO time). */
  createdAt: string;
  /** Training metrics at that step, as the provider gave them. */
  trainingMetrics: Record<string, number>;
  /** The generation calls of the checkpoint's answers: paid ones, and ones served by the cache. */
  generation: { calls: number; cacheHits: number };
}

/** The checkpoint metadata of a stored run, or `null` for a run that is not a checkpoint's. */
export function checkpointMetadataOf(run: StoredRun): CheckpointMetadata | null {
  const metadata = run.config.metadata as { finetune?: unknown } | undefined;
  const finetune = metadata?.finetune as Partial<CheckpointMetadata> | undefined;
  if (typeof finetune?.checkpoint !== "string" || typeof finetune.step !== "number") return null;
  return finetune as CheckpointMetadata;
}

/**
 * The completed runs of a job's checkpoints in a store, by checkpoint id (the newest run of
 * each): checkpoints already scored, which a restarted watch does not score again.
 */
export async function findScoredCheckpoints(options: {
  store: Store | null;
  identifier: string;
  jobId: string;
}): Promise<Map<string, StoredRun>> {
  const scored = new Map<string, StoredRun>();
  if (options.store === null) return scored;
  for (const run of await options.store.runs.listRuns()) {
    if (run.identifier !== options.identifier || run.status !== "completed") continue;
    const metadata = checkpointMetadataOf(run);
    if (metadata === null || metadata.job !== options.jobId) continue;
    if (!scored.has(metadata.checkpoint)) scored.set(metadata.checkpoint, run);
  }
  return scored;
}

/**
 * Whether the latest run of the identifier is an unfinished run of this checkpoint (killed or
 * interrupted half-way): then it is resumed, and its finished cases are kept.
 */
export async function isUnfinishedRunOf(options: {
  store: Store | null;
  identifier: string;
  checkpoint: FineTuningCheckpoint;
}): Promise<boolean> {
  const latest = (await options.store?.runs.getRun(options.identifier)) ?? null;
  if (latest === null || latest.status === "completed") return false;
  return checkpointMetadataOf(latest)?.checkpoint === options.checkpoint.id;
}

/**
 * The epoch of each step: checkpoints close epochs, so the steps per epoch divide every
 * checkpoint's step, and their greatest common divisor is the best estimate the steps give.
 */
export function epochOfStep(options: { step: number; steps: readonly number[] }): number | null {
  const steps = options.steps.filter((step) => Number.isInteger(step) && step > 0);
  if (steps.length === 0 || !Number.isInteger(options.step) || options.step <= 0) return null;
  const perEpoch = steps.reduce(greatestCommonDivisor, options.step);
  return options.step / perEpoch;
}

function greatestCommonDivisor(left: number, right: number): number {
  let [a, b] = [left, right];
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
