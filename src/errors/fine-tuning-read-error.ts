import { EvalError, type EvalErrorOptions } from "./eval-error.ts";

/** Options of {@link FineTuningReadError}. */
export interface FineTuningReadErrorOptions extends EvalErrorOptions {
  /** HTTP status of the failed read, or `null` when no response came. */
  status: number | null;
  /** Whether reading again later can succeed (a rate limit, a server error, a dropped connection). */
  retryable: boolean;
  /** Milliseconds the provider asked to wait (`Retry-After`), when it said. */
  retryAfterMs?: number | null;
}

/**
 * A fine-tuning job (or its checkpoints) could not be read from the provider. The watcher
 * reads again after a backoff when `retryable`, and gives up after several failures in a row.
 */
export class FineTuningReadError extends EvalError {
  readonly status: number | null;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;

  constructor(message: string, options: FineTuningReadErrorOptions) {
    super("FINE_TUNING", message, options);
    this.status = options.status;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}
