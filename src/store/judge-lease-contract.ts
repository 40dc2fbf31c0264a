import { afterEach, describe, expect, it } from "vitest";
import { claimWithLease } from "./judge-lease.ts";
import { formatLeaseHolder, leaseHolder, leaseHostId } from "./lease-holder.ts";
import { isProcessAlive } from "./run-liveness.ts";
import type { CachedJudgeAnswer, JudgeCache, JudgeLeases, Store } from "./run-store.ts";

/** A store that shares its judge cache with other processes, and the leases that go with it. */
export type LeasingStore = Store & { judgeCache: JudgeCache; leases: JudgeLeases };

/** Two stores over the same data, as two processes (or machines) open it. */
export interface SharedStores {
  first: LeasingStore;
  second: LeasingStore;
}

/** Options of {@link describeJudgeLeaseContract}. */
export interface JudgeLeaseContractOptions {
  /** Shown in the suite's title. */
  name: string;
  /** Opens two stores over fresh, shared data, their leases lasting `leaseMs`. */
  open: (options: { leaseMs?: number }) => SharedStores | Promise<SharedStores>;
}

const answer: CachedJudgeAnswer = {
  text: null,
  object: { verdicts: [{ verdict: "no" }] },
  inputTokens: 10,
  outputTokens: 2,
  costUsd: 0.001,
};

/** What a promise has settled to so far. */
export function track<Value>(promise: Promise<Value>) {
  const state: { value?: Value; error?: unknown; settled: boolean } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { value, settled: true }),
    (error: unknown) => Object.assign(state, { error, settled: true }),
  );
  return state;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * The behaviour of `claimWithLease` over `store.leases` that every store sharing its judge
 * cache between processes must have, as a Vitest suite: run with two stores over the same data.
 * @example
 * describeJudgeLeaseContract({ name: "SqliteRunStore", open: ({ leaseMs }) => twoStoresOnOneFile(leaseMs) });
 */
export function describeJudgeLeaseContract(options: JudgeLeaseContractOptions): void {
  describe(`${options.name} (judge cache leases)`, () => {
    const opened: SharedStores[] = [];
    const open = async (leaseMs?: number) => {
      const stores = await options.open(leaseMs === undefined ? {} : { leaseMs });
      opened.push(stores);
      return stores;
    };
    /** What evaluate() does before asking the judge: the answer, or the lease on the key. */
    const claim = (store: LeasingStore, key: string, signal?: AbortSignal) =>
      claimWithLease({
        backend: store.leases,
        key,
        holder: leaseHolder(),
        leaseMs: store.leases.leaseMs ?? 30_000,
        signal,
      });
    afterEach(async () => {
      for (const { first, second } of opened.splice(0)) {
        await first.close();
        await second.close();
      }
    });

    it("gives a cached answer at once, and a lease on a miss", async () => {
      const { first } = await open();
      await first.judgeCache.set("cached", answer);
      expect(await claim(first, "cached")).toEqual({ answer });
      expect(await claim(first, "missing")).toHaveProperty("lease");
    });

    it("makes a second claimant wait for the holder's answer, then gives it", async () => {
      const { first, second } = await open();
      const held = await claim(first, "key");
      expect(held).toHaveProperty("lease");
      const waiting = track(claim(second, "key"));
      await sleep(150);
      expect(waiting.settled).toBe(false);
      await first.judgeCache.set("key", answer);
      if ("lease" in held) await held.lease.release();
      await expect.poll(() => waiting.settled).toBe(true);
      expect(waiting.value).toEqual({ answer });
    });

    it("hands a released lease (a failed call) to the next claimant", async () => {
      const { first, second } = await open();
      const held = await claim(first, "key");
      const waiting = track(claim(second, "key"));
      if ("lease" in held) {
        await held.lease.release();
        await held.lease.release();
      }
      await expect.poll(() => waiting.settled).toBe(true);
      expect(waiting.value).toHaveProperty("lease");
    });

    it("renews a live holder's lease, and takes over one whose holder died once it expires", async () => {
      const { first, second } = await open(300);
      await claim(first, "key");
      const waiting = track(claim(second, "key"));
      // Three lease lengths: renewed all along, so still held.
      await sleep(900);
      expect(waiting.settled).toBe(false);
      // The holder's process is gone: no renewal, no release.
      await first.close();
      await expect.poll(() => waiting.settled, { timeout: 5000 }).toBe(true);
      expect(waiting.value).toHaveProperty("lease");
    });

    it("takes over at once the lease of a process of this machine that died, not waiting for it to expire", async ({
      skip,
    }) => {
      const host = leaseHostId();
      if (host === null) skip("this machine's boot id or pid namespace cannot be read");
      // Ten minutes: only a takeover ends it during the test.
      const { first, second } = await open(600_000);
      let pid = 4_194_303;
      while (isProcessAlive(pid)) pid -= 7919;
      // As a process killed while it held the lease leaves it: no renewal, no release.
      const dead = formatLeaseHolder({ host: host as string, pid, start: null, claim: "dead:1" });
      expect(await first.leases.tryClaim("key", dead, 600_000)).toEqual({ leased: true });
      expect(await claim(second, "key")).toHaveProperty("lease");
    });

    it("stops waiting when the claimant's signal aborts", async () => {
      const { first, second } = await open();
      await claim(first, "key");
      const controller = new AbortController();
      const waiting = claim(second, "key", controller.signal);
      controller.abort(new Error("run cancelled"));
      await expect(waiting).rejects.toThrow("run cancelled");
    });
  });
}
