import type { AttemptSlot } from "../judge/with-retries.ts";

/**
 * A request's concurrency slot, taken before its first attempt and handed to that attempt, so
 * that what the request does between taking its slot and asking the judge (claiming the judge
 * cache's lease on it) happens while it can already ask: a lease is never held by a request
 * still queueing for a slot, so another process waiting for that answer waits for one judge
 * call, not for this process's queue.
 * @example
 * const held = new HeldFirstSlot(laneSlot);
 * await held.take(signal);
 * try { … callJudge({ slot: held.slot }) … } finally { held.giveBack(); }
 */
export class HeldFirstSlot {
  private readonly inner: AttemptSlot;
  private held = false;

  constructor(inner: AttemptSlot) {
    this.inner = inner;
  }

  /** Waits for the slot and holds it until the first attempt takes it or it is given back. */
  async take(signal: AbortSignal | undefined): Promise<void> {
    await this.inner.acquire(signal);
    this.held = true;
  }

  /** The slot the request's attempts use: the first one gets the held slot without queueing. */
  readonly slot: AttemptSlot = {
    acquire: (signal) => {
      if (!this.held) return this.inner.acquire(signal);
      this.held = false;
      return Promise.resolve();
    },
    release: (outcome) => this.inner.release(outcome),
  };

  /** Gives the slot back if no attempt took it (the answer came from the cache, or an error). */
  giveBack(): void {
    if (!this.held) return;
    this.held = false;
    this.inner.release({ error: null });
  }
}
