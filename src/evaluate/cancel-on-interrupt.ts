import { EvalError } from "../errors/eval-error.ts";

/** The exit code a script gets after a run handled its Ctrl-C: the shell's 128 + SIGINT. */
const INTERRUPTED_EXIT_CODE = 130;

/**
 * Aborts a run's own controller when the caller's `signal` aborts and, with
 * `handleInterrupt`, on Ctrl-C (once). Returns what removes both listeners.
 */
export function cancelOnInterrupt(options: {
  controller: AbortController;
  signal: AbortSignal | undefined;
  handleInterrupt: boolean;
}): () => void {
  const { controller, signal, handleInterrupt } = options;
  const onInterrupt = () => {
    // Handled here, Ctrl-C no longer ends the process: the script would go on and exit 0. Its
    // exit code still tells a shell or CI that the run was cut short (128 + SIGINT), unless
    // the caller cancels runs its own way (a `signal`) and so decides the exit itself.
    if (!signal) process.exitCode = INTERRUPTED_EXIT_CODE;
    controller.abort(new EvalError("ABORTED", "Interrupted (Ctrl-C)."));
  };
  const onSignal = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onSignal, { once: true });
  if (signal?.aborted) controller.abort(signal.reason);
  if (handleInterrupt) process.once("SIGINT", onInterrupt);
  return () => {
    if (handleInterrupt) process.removeListener("SIGINT", onInterrupt);
    signal?.removeEventListener("abort", onSignal);
  };
}
