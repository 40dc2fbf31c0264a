import type { TestRunOutcome } from "../results/test-run-outcome.ts";

/** Exit codes of the `verdict` program (SPEC §6). Other programs rely on these numbers. */
export const EXIT_CODES = {
  /** Every test passed. */
  passed: 0,
  /** Some test failed. */
  failed: 1,
  /** Usage or configuration error (bad flag, no judge configured, unreadable file). */
  usage: 2,
  /** Judge errors left test cases unscored (quota, judge failures). */
  unscored: 3,
  /**
   * The run's budget (`--max-cost`, `--max-tokens`) stopped it before it finished: the cases it
   * finished are stored; resume with a larger budget to finish.
   */
  budget: 4,
  /**
   * Interrupted by Ctrl-C (SIGINT): the shell's convention, 128 + 2. SIGTERM and SIGHUP stop a
   * run the same way and exit 143 and 129 (see `STOP_SIGNALS`).
   */
  interrupted: 130,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The `verdict` exit code of a test run's outcome: 0 passed, 1 failed, 2 usage, 3 unscored, 4 budget. */
export function exitCodeForOutcome(options: { outcome: TestRunOutcome }): ExitCode {
  return EXIT_CODES[options.outcome];
}
