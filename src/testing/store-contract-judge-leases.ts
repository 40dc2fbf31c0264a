/**
 * The store contract's judge cache leases (`store.leases`): who holds a live lease, and the
 * lease of a process of this machine that is gone (killed, crashed) taken over at once rather
 * than waited out, never one of another machine or of a live process.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimWithLease } from "../store/judge-lease.ts";
import { track } from "../store/judge-lease-contract.ts";
import {
  formatLeaseHolder,
  leaseHolder,
  leaseHostId,
  processStartTime,
} from "../store/lease-holder.ts";
import { isProcessAlive } from "../store/run-liveness.ts";
import type { JudgeLeases } from "../store/run-store.ts";
import type { CurrentStore, StoreCapabilities } from "./store-contract-support.ts";

/** Ten minutes: a lease that cannot expire during a test, so only a takeover ends it early. */
const LONG_LEASE_MS = 600_000;

/** A process id that no process of this machine has now. */
export function pidOfNoProcess(): number {
  for (let pid = 4_194_303; pid > 1; pid -= 7919) {
    if (!isProcessAlive(pid)) return pid;
  }
  throw new Error("found no unused process id");
}

/** A holder name of a process of this machine that is gone. */
function goneHolder(claim: string): string {
  const host = leaseHostId() ?? "unknown-host";
  return formatLeaseHolder({ host, pid: pidOfNoProcess(), start: null, claim });
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Declares the group "judge cache leases", skipped for a store without `leases`. The takeover
 * tests need to know this machine (`leaseHostId()`): on a Linux whose boot id or pid namespace
 * cannot be read, no lease is taken over early, and they are skipped.
 */
export function describeJudgeLeasesContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe.skipIf(!capabilities.leases)("judge cache leases", () => {
    let leases: JudgeLeases;
    const controllers: AbortController[] = [];
    beforeEach(() => {
      const part = current().leases;
      if (part === null) throw new Error("The store has no leases in this test, but had some.");
      leases = part;
    });
    afterEach(() => {
      for (const controller of controllers.splice(0)) controller.abort(new Error("test over"));
    });
    const claim = (key: string, options: { isProcessAlive?: (pid: number) => boolean } = {}) => {
      const controller = new AbortController();
      controllers.push(controller);
      return claimWithLease({
        backend: leases,
        key,
        holder: leaseHolder(),
        leaseMs: LONG_LEASE_MS,
        signal: controller.signal,
        ...(options.isProcessAlive ? { liveness: { isProcessAlive: options.isProcessAlive } } : {}),
      });
    };
    const knowsHost = leaseHostId() !== null;

    it("takes a free lease, and names the holder of a live one", async () => {
      const first = leaseHolder();
      expect(await leases.tryClaim("key", first, LONG_LEASE_MS)).toEqual({ leased: true });
      expect(await leases.tryClaim("key", leaseHolder(), LONG_LEASE_MS)).toEqual({
        leased: false,
        holder: first,
      });
    });

    it("gives a lease over only from the holder named, to one claimant", async () => {
      expect(leases.takeOver).toBeTypeOf("function");
      const gone = goneHolder("contract:1");
      const [first, second] = [leaseHolder(), leaseHolder()];
      await leases.tryClaim("key", gone, LONG_LEASE_MS);
      expect(await leases.takeOver?.("key", leaseHolder(), first, LONG_LEASE_MS)).toBe(false);
      expect(await leases.takeOver?.("key", gone, first, LONG_LEASE_MS)).toBe(true);
      expect(await leases.takeOver?.("key", gone, second, LONG_LEASE_MS)).toBe(false);
      expect(await leases.tryClaim("key", second, LONG_LEASE_MS)).toEqual({
        leased: false,
        holder: first,
      });
    });

    it.skipIf(!knowsHost)(
      "takes over at once the lease of a process of this machine that is gone",
      async () => {
        await leases.tryClaim("key", goneHolder("contract:2"), LONG_LEASE_MS);
        expect(await claim("key")).toHaveProperty("lease");
      },
    );

    it.skipIf(!knowsHost || processStartTime(process.pid) === null)(
      "takes over the lease of a process whose pid another process has taken since",
      async () => {
        // This process's pid, with another start time: the holder was an earlier process.
        const host = leaseHostId() as string;
        const earlier = formatLeaseHolder({
          host,
          pid: process.pid,
          start: "1",
          claim: "contract:3",
        });
        await leases.tryClaim("key", earlier, LONG_LEASE_MS);
        expect(await claim("key")).toHaveProperty("lease");
      },
    );

    it.skipIf(!knowsHost)(
      "notices while it waits that the holder died, and takes over",
      async () => {
        let alive = true;
        const pid = pidOfNoProcess();
        const holder = formatLeaseHolder({
          host: leaseHostId() as string,
          pid,
          start: null,
          claim: "contract:4",
        });
        await leases.tryClaim("key", holder, LONG_LEASE_MS);
        const waiting = track(claim("key", { isProcessAlive: () => alive }));
        await sleep(300);
        expect(waiting.settled).toBe(false);
        alive = false;
        await expect.poll(() => waiting.settled, { timeout: 10_000 }).toBe(true);
        expect(waiting.value).toHaveProperty("lease");
      },
    );

    it("never takes over the lease of a live process, nor of another machine", async () => {
      const otherMachine = formatLeaseHolder({
        host: "another-machine@0123456789abcdef-4026531836",
        pid: pidOfNoProcess(),
        start: null,
        claim: "contract:5",
      });
      await leases.tryClaim("live", leaseHolder(), LONG_LEASE_MS);
      await leases.tryClaim("elsewhere", otherMachine, LONG_LEASE_MS);
      const live = track(claim("live"));
      const elsewhere = track(claim("elsewhere"));
      await sleep(600);
      expect(live.settled).toBe(false);
      expect(elsewhere.settled).toBe(false);
    });
  });
}
