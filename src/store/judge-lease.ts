import { isLeaseHolderGone, type LeaseHolderGoneOptions } from "./lease-holder.ts";
import type { JudgeCacheClaim, JudgeCacheLease, JudgeLeases } from "./run-store.ts";

/** Options of {@link claimWithLease}. */
export interface ClaimWithLeaseOptions {
  backend: JudgeLeases;
  key: string;
  /** Who asks: unique to this claim (see {@link leaseHolder}). */
  holder: string;
  /** How long a lease lives unless renewed; it is renewed every third of it while held. */
  leaseMs: number;
  /**
   * First wait between two looks at another holder's lease; it grows by half each time. With
   * a backend that wakes waiters (`waitForKey`), the longest a waiter sleeps before it looks
   * again anyway (a holder that died leaves no word). @default 25
   */
  pollMs?: number;
  /** @default 250 */
  maxPollMs?: number;
  signal?: AbortSignal | undefined;
  /** @default Math.random */
  random?: () => number;
  /** How a holder is found gone (this machine, its process table). @default the real ones */
  liveness?: LeaseHolderGoneOptions;
  /**
   * Called before each wait for another holder's answer, e.g. to give back a concurrency slot
   * held for the claim: a claimant must not keep what that holder may need to answer (a slot to
   * retry in) while it waits for it.
   */
  onWait?: () => void;
}

function pause(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `JudgeCache.claim` for a store that keeps leases: the cached answer, or the lease on the
 * key (renewed while held, so only a holder that died loses it), or — while another holder's
 * lease is live — a wait with growing pauses (25 ms to 250 ms, jittered; the event loop runs on)
 * until its answer is cached or its lease expires and this caller takes over. A lease whose
 * holder is a process of this machine that is gone (killed, crashed: see `isLeaseHolderGone`)
 * is taken over at once, where the store can (`takeOver`), rather than waited out.
 * @example
 * const claim = await claimWithLease({ backend, key, holder: leaseHolder(), leaseMs: 30_000 });
 */
export async function claimWithLease(options: ClaimWithLeaseOptions): Promise<JudgeCacheClaim> {
  const { backend, key, holder, leaseMs, signal } = options;
  const random = options.random ?? Math.random;
  const maxPollMs = options.maxPollMs ?? 250;
  let pollMs = options.pollMs ?? 25;
  for (;;) {
    signal?.throwIfAborted();
    const attempt = await backend.tryClaim(key, holder, leaseMs);
    if ("answer" in attempt) return { answer: attempt.answer };
    if (attempt.leased) return { lease: holdLease({ backend, key, holder, leaseMs }) };
    // The holder died on this machine: take its lease over now, if it still holds it (else
    // another claimant was first, or it was let go: wait, then look again).
    const from = attempt.holder;
    if (
      from !== undefined &&
      backend.takeOver !== undefined &&
      isLeaseHolderGone(from, options.liveness) &&
      (await backend.takeOver(key, from, holder, leaseMs))
    ) {
      return { lease: holdLease({ backend, key, holder, leaseMs }) };
    }
    options.onWait?.();
    if (backend.waitForKey) {
      // Woken as soon as the holder stores its answer or lets go; the timeout covers a holder
      // that died without a word (taken over at the next look when it was of this machine,
      // else once its lease expires).
      await backend.waitForKey(key, { timeoutMs: Math.min(leaseMs, 1000), signal });
      continue;
    }
    await pause(pollMs * (0.8 + 0.4 * random()), signal);
    pollMs = Math.min(maxPollMs, pollMs * 1.5);
  }
}

function holdLease(options: {
  backend: JudgeLeases;
  key: string;
  holder: string;
  leaseMs: number;
}): JudgeCacheLease {
  const { backend, key, holder, leaseMs } = options;
  // A renewal that fails costs at most a second payment by another process once the lease
  // lapses; the call in progress goes on. One renewal at a time: a store that retries through
  // an outage holds a renewal for a while, and must not pile up one per tick meanwhile.
  let renewing = false;
  const timer = setInterval(
    () => {
      if (renewing) return;
      renewing = true;
      backend
        .renew(key, holder, leaseMs)
        .catch(() => {})
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      // Not released (the store broke): the lease simply expires.
      await backend.release(key, holder).catch(() => {});
    },
  };
}
