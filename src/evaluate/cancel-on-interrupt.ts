import { EvalError } from "../errors/eval-error.ts";

/**
 * The signals that stop a run the way Ctrl-C does, each with the exit code a shell gives a
 * process it ended (128 + the signal's number). SIGTERM is how CI services (GitHub Actions,
 * GitLab, Jenkins), Kubernetes and `docker stop` cancel a job; SIGHUP comes when the terminal
 * or SSH session closes.
 */
export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** One of {@link STOP_SIGNALS}. */
export type StopSignal = keyof typeof STOP_SIGNALS;

/** The names of {@link STOP_SIGNALS}. */
export const STOP_SIGNAL_NAMES = Object.keys(STOP_SIGNALS) as readonly StopSignal[];

/** How a stop signal is named in messages: Ctrl-C for SIGINT, else the signal's name. */
export function describeStopSignal(signal: StopSignal): string {
  return signal === "SIGINT" ? "Ctrl-C" : signal;
}

// The last stop signal a run handled in this process (signals are the process's own).
let lastStop: StopSignal | null = null;

/**
 * The exit code of a command whose run a stop signal ended: 128 + the number of the signal
 * that stopped it (143 for SIGTERM, 129 for SIGHUP), 130 (Ctrl-C) when none is known.
 */
export function interruptedExitCode(): number {
  return STOP_SIGNALS[lastStop ?? "SIGINT"];
}

/**
 * Calls `onStop` with the first stop signal ({@link STOP_SIGNALS}) the process receives, then
 * stops listening: a second signal then does what it would have done without us (Node ends the
 * process), so one that hangs while stopping can still be ended. Returns what removes the
 * listeners (safe to call more than once).
 */
export function onFirstStopSignal(onStop: (signal: StopSignal) => void): () => void {
  const listeners = STOP_SIGNAL_NAMES.map((name) => {
    const listener = () => {
      detach();
      lastStop = name;
      onStop(name);
    };
    return [name, listener] as const;
  });
  const detach = () => {
    for (const [name, listener] of listeners) process.removeListener(name, listener);
  };
  for (const [name, listener] of listeners) process.on(name, listener);
  return detach;
}

/**
 * Aborts a run's own controller when the caller's `signal` aborts and, with
 * `handleInterrupt`, on the first stop signal: Ctrl-C (SIGINT), SIGTERM or SIGHUP. Returns
 * what removes every listener.
 */
export function cancelOnInterrupt(options: {
  controller: AbortController;
  signal: AbortSignal | undefined;
  handleInterrupt: boolean;
}): () => void {
  const { controller, signal, handleInterrupt } = options;
  const detachStop = handleInterrupt
    ? onFirstStopSignal((name) => {
        // Handled here, the signal no longer ends the process: the script would go on and exit
        // 0. Its exit code still tells a shell or CI that the run was cut short (128 + the
        // signal), unless the caller cancels runs its own way (a `signal`) and so decides the
        // exit itself.
        if (!signal) process.exitCode = STOP_SIGNALS[name];
        controller.abort(new EvalError("ABORTED", `Interrupted (${describeStopSignal(name)}).`));
      })
    : () => {};
  const onSignal = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onSignal, { once: true });
  if (signal?.aborted) controller.abort(signal.reason);
  return () => {
    detachStop();
    signal?.removeEventListener("abort", onSignal);
  };
}
