import type { Reporter, Vitest } from "vitest/node";
import {
  onFirstStopSignal,
  STOP_SIGNAL_NAMES,
  STOP_SIGNALS,
  type StopSignal,
} from "../../evaluate/cancel-on-interrupt.ts";

/**
 * How `verdict test run` stops on Ctrl-C, SIGTERM (a CI service or `docker stop` cancelling
 * the job) or SIGHUP (the terminal closed). Vitest's own handlers exit at once, printing
 * nothing and leaving the stored run "running"; instead, the first signal cancels the Vitest
 * run: running tests stop (their judge calls are aborted), the reporter stores the run as
 * interrupted, prints what finished and writes the --output reports, and the command exits
 * 128 + the signal. A second signal ends the process at once. Listening starts when the
 * command starts, so that a signal before the first test still stops the run before it.
 */
export class TestRunStop {
  private stoppedBy: StopSignal | null = null;
  private vitest: Vitest | null = null;
  private readonly stopListening: () => void;
  private readonly stderr: NodeJS.WritableStream;
  private onSignal: (signal: StopSignal) => void = () => {};
  private readonly firstSignal = new Promise<StopSignal>((resolve) => {
    this.onSignal = resolve;
  });

  constructor(options: { stderr?: NodeJS.WritableStream } = {}) {
    this.stderr = options.stderr ?? process.stderr;
    this.stopListening = onFirstStopSignal((name) => {
      this.stoppedBy = name;
      this.stderr.write(
        name === "SIGINT"
          ? "\nInterrupted: stopping the running tests (Ctrl-C again to quit at once)…\n"
          : `\nInterrupted by ${name}: stopping the running tests (${name} again to quit at once)…\n`,
      );
      this.cancel();
      this.onSignal(name);
    });
  }

  /** Settles with the first stop signal: what ends a `--watch` session. */
  get stopped(): Promise<StopSignal> {
    return this.firstSignal;
  }

  /** The signal that stopped the run, or `null`. */
  get signal(): StopSignal | null {
    return this.stoppedBy;
  }

  /** The exit code of a stopped run: 128 + the signal (130, 143, 129). */
  get exitCode(): number | null {
    return this.stoppedBy === null ? null : STOP_SIGNALS[this.stoppedBy];
  }

  /**
   * Creates Vitest without the handlers of the stop signals it adds (they exit at once): each
   * is removed in the microtask after it is added, before any signal can reach it (signals
   * come as events of the event loop, never between a task and its microtasks).
   */
  async createVitest(create: () => Promise<Vitest>): Promise<Vitest> {
    const names: ReadonlyArray<string | symbol> = STOP_SIGNAL_NAMES;
    const onNewListener = (name: string | symbol, listener: (...args: unknown[]) => void) => {
      if (names.includes(name)) queueMicrotask(() => process.off(name, listener));
    };
    process.on("newListener", onNewListener);
    try {
      this.vitest = await create();
    } finally {
      process.off("newListener", onNewListener);
    }
    return this.vitest;
  }

  /**
   * A reporter that cancels again as each test file is queued: Vitest forgets a cancellation
   * that comes before its run has begun, so a signal in that moment would let every test run.
   */
  readonly reporter: Reporter = {
    onTestModuleQueued: () => {
      if (this.stoppedBy !== null) this.cancel();
    },
  };

  /** Stops listening (safe to call more than once). */
  close(): void {
    this.stopListening();
  }

  private cancel(): void {
    void this.vitest?.cancelCurrentRun("keyboard-input");
  }
}
