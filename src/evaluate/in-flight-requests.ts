import type { JudgeResponse } from "../judge/judge-transport.ts";

/** One judge request in flight, shared by every caller asking the same. */
export interface InFlightRequest {
  judgeName: string;
  promise: Promise<JudgeResponse>;
  controller: AbortController;
  waiters: number;
}

/**
 * The judge requests in flight, by key: a caller asking what is already being asked waits for
 * that call instead of making another.
 */
export class InFlightRequests {
  private readonly entries = new Map<string, InFlightRequest>();

  /**
   * Joins the call of `key` in flight (`shared`), or starts it with `start`, given the call's
   * own signal; either way the caller is one more waiter, until it {@link leave}s.
   */
  join(options: {
    key: string;
    judgeName: string;
    start: (signal: AbortSignal) => Promise<JudgeResponse>;
  }): { entry: InFlightRequest; shared: boolean } {
    const { key } = options;
    let entry = this.entries.get(key);
    const shared = entry !== undefined;
    if (!entry) {
      // The call belongs to every caller waiting on it, not to the first one: it has its own
      // controller, aborted only when the run stops or every waiter has given up.
      const controller = new AbortController();
      const created: InFlightRequest = {
        judgeName: options.judgeName,
        controller,
        waiters: 0,
        promise: options.start(controller.signal),
      };
      created.promise
        .finally(() => {
          if (this.entries.get(key) === created) this.entries.delete(key);
        })
        .catch(() => {});
      this.entries.set(key, created);
      entry = created;
    }
    entry.waiters += 1;
    return { entry, shared };
  }

  /** A waiter is done with `entry`: the last one, if its `signal` aborted, cancels the call. */
  leave(entry: InFlightRequest, signal: AbortSignal | undefined): void {
    entry.waiters -= 1;
    if (entry.waiters === 0 && signal?.aborted) entry.controller.abort(signal.reason);
  }

  /** Cancels every call in flight with `error`. */
  abortAll(error: Error): void {
    for (const entry of this.entries.values()) entry.controller.abort(error);
  }

  /** Cancels the calls in flight to judge `judgeName` with `error`. */
  abortJudge(judgeName: string, error: Error): void {
    for (const entry of this.entries.values()) {
      if (entry.judgeName === judgeName) entry.controller.abort(error);
    }
  }
}
