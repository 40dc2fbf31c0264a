import { describe, expect, it } from "vitest";
import {
  formatLeaseHolder,
  isLeaseHolderGone,
  leaseHolder,
  leaseHostId,
  parseLeaseHolder,
  processStartTime,
} from "./lease-holder.ts";

const host = "build-7@0123456789abcdef-4026531836";
const holder = (pid: number, start: string | null) =>
  formatLeaseHolder({ host, pid, start, claim: "k3x9:1" });
const table = (alive: Record<number, string>) => ({
  hostId: host,
  isProcessAlive: (pid: number) => pid in alive,
  startTimeOf: (pid: number) => alive[pid] ?? null,
});

describe("lease holders", () => {
  it("names this process's claims uniquely, in a form it reads back", () => {
    const [first, second] = [leaseHolder(), leaseHolder()];
    expect(first).not.toBe(second);
    expect(parseLeaseHolder(first)).toEqual({
      host: leaseHostId() ?? expect.stringMatching(/@unknown-/),
      pid: process.pid,
      start: processStartTime(process.pid),
    });
    expect(isLeaseHolderGone(first)).toBe(false);
  });

  it("finds a holder of this machine gone when its pid is free, or now another process's", () => {
    const alive = table({ 200: "5000", 300: "7777" });
    expect(isLeaseHolderGone(holder(100, "1234"), alive)).toBe(true);
    expect(isLeaseHolderGone(holder(100, null), alive)).toBe(true);
    // Pid 200 started again since: another process took the pid.
    expect(isLeaseHolderGone(holder(200, "4000"), alive)).toBe(true);
    expect(isLeaseHolderGone(holder(200, "5000"), alive)).toBe(false);
    // Its start unknown: alive as far as can be told.
    expect(isLeaseHolderGone(holder(300, null), alive)).toBe(false);
  });

  it("never finds gone a holder of another machine, of an unknown form, or when this machine is unknown", () => {
    const nobody = table({});
    const elsewhere = formatLeaseHolder({
      host: "build-7@fedcba9876543210-4026531836",
      pid: 100,
      start: null,
      claim: "k3x9:1",
    });
    expect(isLeaseHolderGone(elsewhere, nobody)).toBe(false);
    // Another pid namespace (a container with the same host name) is another machine.
    expect(isLeaseHolderGone(holder(100, null).replace("-4026531836", "-4026532999"), nobody)).toBe(
      false,
    );
    // Written by an older verdict: host name, pid, tag, counter.
    expect(isLeaseHolderGone("build-7:100:k3x9:1", nobody)).toBe(false);
    expect(isLeaseHolderGone("not a holder", nobody)).toBe(false);
    expect(isLeaseHolderGone(holder(100, null), { ...nobody, hostId: null })).toBe(false);
  });

  it.runIf(process.platform === "linux")(
    "names a Linux machine by host name, boot id and pid namespace",
    () => {
      expect(leaseHostId()).toMatch(/^[^:\s]+@[0-9a-f]{16}-\d+$/);
      expect(processStartTime(process.pid)).toMatch(/^\d+$/);
    },
  );
});
