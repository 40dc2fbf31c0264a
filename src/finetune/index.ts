/**
 * `verdict/finetune`: scoring while a model trains — every checkpoint of a provider's
 * fine-tuning job (`evaluateCheckpoints`), every epoch of a training loop
 * (`createEvaluationCallback`).
 * @packageDocumentation
 */
export {
  type CheckpointsOutcome,
  type CheckpointsResult,
  evaluateCheckpoints,
} from "./evaluate-checkpoints.ts";
export type { EvaluateCheckpointsOptions } from "./evaluate-checkpoints-options.ts";
export {
  createEvaluationCallback,
  type EpochEvaluation,
  type EvaluationCallback,
  type EvaluationCallbackOptions,
} from "./evaluation-callback.ts";
