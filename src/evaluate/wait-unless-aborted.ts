import { EvalError } from "../errors/eval-error.ts";

/** Waits for `promise`, but gives up (with an "ABORTED" error) as soon as `signal` aborts. */
export function waitUnlessAborted<T>(options: {
  promise: Promise<T>;
  signal: AbortSignal | undefined;
}): Promise<T> {
  const { promise, signal } = options;
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    const waiter: Waiter = { reject };
    const onAbort = abortListener(signal, waiter);
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      signal.removeEventListener("abort", onAbort);
      waiter.reject = null;
    };
    promise.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

/** What the abort listener reaches of a wait: its `reject`, until the wait settles. */
interface Waiter {
  reject: ((error: Error) => void) | null;
}

/**
 * The abort listener of one wait, made apart from it so that it holds the waiter and nothing
 * else of the call. The signal is the run's, which lives as long as the run, and a listener
 * Node's EventTarget has removed stays linked to the ones added after it: were a settled
 * listener to reach its call (the promise, the request and its prompt, the metric that asked),
 * one that lived through two young-generation collections would keep every later call of the
 * run alive until the next full collection.
 */
function abortListener(signal: AbortSignal, waiter: Waiter): () => void {
  return () => waiter.reject?.(abortedError(signal));
}

function abortedError(signal: AbortSignal): EvalError {
  return new EvalError("ABORTED", "The judge request was cancelled by its caller.", {
    cause: signal.reason,
  });
}
