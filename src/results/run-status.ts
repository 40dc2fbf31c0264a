import type { RunStatus } from "./evaluation-result.ts";

/** Every {@link RunStatus}, in the order runs go through them: what stored and reported runs are checked against. */
export const RUN_STATUSES = [
  "running",
  "completed",
  "interrupted",
  "quota-exhausted",
  "budget-exhausted",
  "failed",
] as const satisfies readonly RunStatus[];

type UnlistedRunStatus = Exclude<RunStatus, (typeof RUN_STATUSES)[number]>;
// A compile error here names a run status missing from RUN_STATUSES.
const everyRunStatusListed: [UnlistedRunStatus] extends [never] ? true : UnlistedRunStatus = true;
void everyRunStatusListed;

/**
 * How a run ended, the one rule for evaluate() and `verdict test run`: an error that stopped
 * it (or a configuration that scored nothing) makes it `failed`; else an exhausted judge
 * quota, `quota-exhausted`; else a budget that could not pay for another call,
 * `budget-exhausted`; else a cancellation (Ctrl-C, a signal), `interrupted`; else `completed`.
 * @example
 * decideRunStatus({ failed: false, quotaExhausted: false, interrupted: true }); // "interrupted"
 */
export function decideRunStatus(options: {
  failed: boolean;
  quotaExhausted: boolean;
  budgetExhausted?: boolean;
  interrupted: boolean;
}): RunStatus {
  if (options.failed) return "failed";
  if (options.quotaExhausted) return "quota-exhausted";
  if (options.budgetExhausted) return "budget-exhausted";
  if (options.interrupted) return "interrupted";
  return "completed";
}
