import type { JudgeCallError } from "../errors/judge-call-error.ts";
import type { AttemptSlot } from "../judge/with-retries.ts";

/** A caller waiting in a priority queue, until whoever serves the queue settles it. */
export interface QueuedWaiter<Value> {
  /** Lower is served first; equal ones in the order they came. */
  priority: number;
  resolve: (value: Value) => void;
  reject: (error: Error) => void;
}

type Waiter = QueuedWaiter<void>;

/**
 * Where a waiter of `priority` joins a queue ordered by priority (lowest first): after every one
 * of lower or equal priority, so equal ones keep the order they came in.
 */
export function queuePosition(waiting: readonly { priority: number }[], priority: number): number {
  // Most requests join at the end (a later case, or one case asking again): check it first.
  if (waiting.length === 0 || (waiting.at(-1) as { priority: number }).priority <= priority) {
    return waiting.length;
  }
  let low = 0;
  let high = waiting.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((waiting[middle] as { priority: number }).priority <= priority) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Joins `queue` by `priority` (see {@link queuePosition}) and waits until whoever serves the
 * queue resolves or rejects the waiter; a caller whose `signal` aborts leaves the queue at once
 * (then `onLeave` runs, e.g. to serve the next one), so it is never served.
 */
export function waitInQueue<Value, Waiting extends QueuedWaiter<Value>>(options: {
  queue: Waiting[];
  priority: number;
  signal: AbortSignal | undefined;
  /** The waiter's own fields beside the queue's. */
  fields: Omit<Waiting, keyof QueuedWaiter<Value>>;
  onLeave?: () => void;
}): Promise<Value> {
  const { queue, signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<Value>((resolve, reject) => {
    const onAbort = () => {
      const position = queue.indexOf(waiter);
      if (position !== -1) queue.splice(position, 1);
      reject(signal?.reason);
      options.onLeave?.();
    };
    const waiter = {
      ...options.fields,
      priority: options.priority,
      resolve: (value: Value) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      },
      reject: (error: Error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      },
    } as Waiting;
    signal?.addEventListener("abort", onAbort, { once: true });
    queue.splice(queuePosition(queue, options.priority), 0, waiter);
  });
}

/**
 * The request slots of one judge model: a limit that halves on rate limiting (at most once
 * per cool-down) and grows back by one after as many successes as the limit, up to the
 * maximum (AIMD, as TCP and promptfoo's scheduler do); dispatches spaced by `throttleMs`.
 * Queued requests are dispatched by priority (lowest first), first come first served among
 * equal ones: the run numbers requests by case, so early cases finish early instead of every
 * case advancing in lockstep and all finishing at the end.
 */
export class ModelLane implements AttemptSlot {
  limit: number;
  inFlight = 0;
  private readonly maxConcurrent: number;
  private readonly throttleMs: number;
  private readonly onDispatch: (inFlight: number) => void;
  private readonly waiting: Waiter[] = [];
  private successesSinceChange = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  private nextDispatchAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopError: Error | null = null;

  constructor(options: {
    maxConcurrent: number;
    throttleMs: number;
    onDispatch: (inFlight: number) => void;
  }) {
    this.maxConcurrent = options.maxConcurrent;
    this.limit = options.maxConcurrent;
    this.throttleMs = options.throttleMs;
    this.onDispatch = options.onDispatch;
  }

  /** Waits for a slot; `priority` orders the queue (lower first, then first come). */
  acquire(signal: AbortSignal | undefined, priority = 0): Promise<void> {
    if (this.stopError) return Promise.reject(this.stopError);
    // A waiter whose caller gives up leaves the queue at once: it must never be sent.
    const waiting = waitInQueue<void, Waiter>({
      queue: this.waiting,
      priority,
      signal,
      fields: {},
    });
    this.pump();
    return waiting;
  }

  release(outcome: { error: JudgeCallError | null }): void {
    this.inFlight -= 1;
    // Every attempt's outcome passes here (the last one too), so this is where the limit
    // learns about rate limiting, and where a failure that no later request can escape (an
    // exhausted quota, a rejected key, an unknown model) stops the lane before the next
    // queued request is dispatched.
    const kind = outcome.error?.kind;
    if (outcome.error && (kind === "quota" || kind === "configuration")) {
      this.rejectWaiting(outcome.error);
    } else if (outcome.error?.status === 429) this.onRateLimited();
    this.pump();
  }

  onSuccess(): void {
    this.successesSinceChange += 1;
    if (this.limit < this.maxConcurrent && this.successesSinceChange >= this.limit) {
      this.limit += 1;
      this.successesSinceChange = 0;
      this.pump();
    }
  }

  onRateLimited(): void {
    const now = Date.now();
    // One halving per cool-down: a burst of 429s from requests already in flight is one signal.
    if (now - this.lastDecreaseAt < 1000) return;
    this.lastDecreaseAt = now;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.successesSinceChange = 0;
  }

  /** The error that stopped the lane, if any: every queued and later request fails with it. */
  get stoppedBy(): Error | null {
    return this.stopError;
  }

  /** Stops the lane: queued and later requests fail with the first error that stopped it. */
  rejectWaiting(error: Error): void {
    this.stopError ??= error;
    const stop = this.stopError;
    for (const waiter of this.waiting.splice(0)) waiter.reject(stop);
  }

  private pump(): void {
    while (this.inFlight < this.limit && this.waiting.length > 0) {
      if (this.throttleMs > 0) {
        const now = Date.now();
        if (now < this.nextDispatchAt) {
          if (!this.timer) {
            this.timer = setTimeout(() => {
              this.timer = null;
              this.pump();
            }, this.nextDispatchAt - now);
          }
          return;
        }
        this.nextDispatchAt = now + this.throttleMs;
      }
      const waiter = this.waiting.shift() as Waiter;
      this.inFlight += 1;
      this.onDispatch(this.inFlight);
      waiter.resolve();
    }
  }
}
