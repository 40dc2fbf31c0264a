import { EvalError } from "../errors/eval-error.ts";

/** Waits for `promise`, but gives up (with an "ABORTED" error) as soon as `signal` aborts. */
export function waitUnlessAborted<T>(options: {
  promise: Promise<T>;
  signal: AbortSignal | undefined;
}): Promise<T> {
  const { promise, signal } = options;
  if (!signal) return promise;
  const abortedError = () =>
    new EvalError("ABORTED", "The judge request was cancelled by its caller.", {
      cause: signal.reason,
    });
  if (signal.aborted) return Promise.reject(abortedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
