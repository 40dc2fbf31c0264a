import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimWithLease } from "./judge-lease.ts";
import type { JudgeLeases } from "./run-store.ts";

describe("claimWithLease: the lease it holds", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("renews every third of the lease, one renewal at a time while the store is slow to answer", async () => {
    const renewals: Array<() => void> = [];
    const backend: JudgeLeases = {
      tryClaim: async () => ({ leased: true }),
      // A store waiting out an outage: the renewal answers only when told.
      renew: () => new Promise<void>((resolve) => renewals.push(resolve)),
      release: async () => {},
    };
    const claim = await claimWithLease({ backend, key: "k", holder: "h", leaseMs: 3000 });
    if (!("lease" in claim)) throw new Error("expected a lease");
    await vi.advanceTimersByTimeAsync(1000);
    expect(renewals).toHaveLength(1);
    // Five more ticks while the first renewal hangs: none is sent.
    await vi.advanceTimersByTimeAsync(5000);
    expect(renewals).toHaveLength(1);
    renewals[0]?.();
    await vi.advanceTimersByTimeAsync(1000);
    expect(renewals).toHaveLength(2);
    renewals[1]?.();
    await claim.lease.release();
    await vi.advanceTimersByTimeAsync(5000);
    expect(renewals).toHaveLength(2);
  });
});
