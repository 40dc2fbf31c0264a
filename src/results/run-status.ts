import type { RunStatus } from "./evaluation-result.ts";

/**
 * How a run ended, the one rule for evaluate() and `verdict test run`: an error that stopped
 * it (or a configuration that scored nothing) makes it `failed`; else an exhausted judge
 * quota, `quota-exhausted`; else a cancellation (Ctrl-C, a signal), `interrupted`; else
 * `completed`.
 * @example
 * decideRunStatus({ failed: false, quotaExhausted: false, interrupted: true }); // "interrupted"
 */
export function decideRunStatus(options: {
  failed: boolean;
  quotaExhausted: boolean;
  interrupted: boolean;
}): RunStatus {
  if (options.failed) return "failed";
  if (options.quotaExhausted) return "quota-exhausted";
  if (options.interrupted) return "interrupted";
  return "completed";
}
