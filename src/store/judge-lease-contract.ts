import { afterEach, describe, expect, it } from "vitest";
import type { CachedJudgeAnswer, JudgeCache, RunStore } from "./run-store.ts";

/** Two stores over the same data, as two processes (or machines) open it. */
export interface SharedStores {
  first: RunStore & { judgeCache: JudgeCache };
  second: RunStore & { judgeCache: JudgeCache };
}

/** Options of {@link describeJudgeLeaseContract}. */
export interface JudgeLeaseContractOptions {
  /** Shown in the suite's title. */
  name: string;
  /** Opens two stores over fresh, shared data, their leases lasting `leaseMs`. */
  open: (options: { leaseMs?: number }) => SharedStores;
}

const answer: CachedJudgeAnswer = {
  text: null,
  object: { verdicts: [{ verdict: "no" }] },
  inputTokens: 10,
  outputTokens: 2,
  costUsd: 0.001,
};

/** What a promise has settled to so far. */
function track<Value>(promise: Promise<Value> | undefined) {
  const state: { value?: Value; error?: unknown; settled: boolean } = { settled: false };
  promise?.then(
    (value) => Object.assign(state, { value, settled: true }),
    (error: unknown) => Object.assign(state, { error, settled: true }),
  );
  return state;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * The behaviour of `JudgeCache.claim` every store that shares its cache between processes
 * must have, as a Vitest suite: run with two stores over the same data.
 * @example
 * describeJudgeLeaseContract({ name: "SqliteRunStore", open: ({ leaseMs }) => twoStoresOnOneFile(leaseMs) });
 */
export function describeJudgeLeaseContract(options: JudgeLeaseContractOptions): void {
  describe(`${options.name} (judge cache leases)`, () => {
    const opened: SharedStores[] = [];
    const open = (leaseMs?: number) => {
      const stores = options.open(leaseMs === undefined ? {} : { leaseMs });
      opened.push(stores);
      return stores;
    };
    afterEach(() => {
      for (const { first, second } of opened.splice(0)) {
        first.close();
        second.close();
      }
    });

    it("gives a cached answer at once, and a lease on a miss", async () => {
      const { first } = open();
      first.judgeCache.set("cached", answer);
      expect(await first.judgeCache.claim?.("cached")).toEqual({ answer });
      expect(await first.judgeCache.claim?.("missing")).toHaveProperty("lease");
    });

    it("makes a second claimant wait for the holder's answer, then gives it", async () => {
      const { first, second } = open();
      const held = await first.judgeCache.claim?.("key");
      expect(held).toHaveProperty("lease");
      const waiting = track(second.judgeCache.claim?.("key"));
      await sleep(150);
      expect(waiting.settled).toBe(false);
      first.judgeCache.set("key", answer);
      if (held && "lease" in held) held.lease.release();
      await expect.poll(() => waiting.settled).toBe(true);
      expect(waiting.value).toEqual({ answer });
    });

    it("hands a released lease (a failed call) to the next claimant", async () => {
      const { first, second } = open();
      const held = await first.judgeCache.claim?.("key");
      const waiting = track(second.judgeCache.claim?.("key"));
      if (held && "lease" in held) {
        held.lease.release();
        held.lease.release();
      }
      await expect.poll(() => waiting.settled).toBe(true);
      expect(waiting.value).toHaveProperty("lease");
    });

    it("renews a live holder's lease, and takes over one whose holder died once it expires", async () => {
      const { first, second } = open(300);
      await first.judgeCache.claim?.("key");
      const waiting = track(second.judgeCache.claim?.("key"));
      // Three lease lengths: renewed all along, so still held.
      await sleep(900);
      expect(waiting.settled).toBe(false);
      // The holder's process is gone: no renewal, no release.
      first.close();
      await expect.poll(() => waiting.settled, { timeout: 5000 }).toBe(true);
      expect(waiting.value).toHaveProperty("lease");
    });

    it("stops waiting when the claimant's signal aborts", async () => {
      const { first, second } = open();
      await first.judgeCache.claim?.("key");
      const controller = new AbortController();
      const waiting = second.judgeCache.claim?.("key", { signal: controller.signal });
      controller.abort(new Error("run cancelled"));
      await expect(waiting).rejects.toThrow("run cancelled");
    });
  });
}
