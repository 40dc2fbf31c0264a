import { describe, expect, it } from "vitest";
import { isProcessAlive, runLiveness, STALE_AFTER_MS } from "./run-liveness.ts";
import { makeRunOwner, makeStoredRun, makeSummary } from "./run-store-contract.ts";

const heartbeatAt = "2025-01-01T10:00:30.000Z";
const now = (secondsAfterHeartbeat: number) =>
  Date.parse(heartbeatAt) + secondsAfterHeartbeat * 1000;
const everyProcessAlive = () => true;
const noProcessAlive = () => false;

describe("runLiveness", () => {
  it("keeps a running run whose owner beat recently as running", () => {
    const run = makeStoredRun({ owner: makeRunOwner({ heartbeatAt }) });
    expect(
      runLiveness(run, {
        now: now(119),
        hostname: "build-host",
        isProcessAlive: everyProcessAlive,
      }),
    ).toEqual({ status: "running", stale: false, reason: null, resumeCommand: null });
  });

  it("shows a running run as interrupted once its heartbeat is older than the threshold", () => {
    const run = makeStoredRun({ identifier: "nightly", owner: makeRunOwner({ heartbeatAt }) });
    const options = { hostname: "another-host", isProcessAlive: everyProcessAlive };
    expect(runLiveness(run, { ...options, now: now(STALE_AFTER_MS / 1000) }).stale).toBe(false);
    expect(runLiveness(run, { ...options, now: now(121) })).toEqual({
      status: "interrupted",
      stale: true,
      reason: "no heartbeat for 121 s from process 4242 on build-host",
      resumeCommand: 'evaluate({ identifier: "nightly", resume: true, … })',
    });
  });

  it("shows a run as interrupted at once when its process is gone on this host", () => {
    const run = makeStoredRun({ owner: makeRunOwner({ heartbeatAt }) });
    const pids: number[] = [];
    const liveness = runLiveness(run, {
      now: now(1),
      hostname: "build-host",
      isProcessAlive: (pid) => {
        pids.push(pid);
        return false;
      },
    });
    expect(pids).toEqual([4242]);
    expect(liveness).toMatchObject({
      status: "interrupted",
      reason: "process 4242 on build-host is gone",
      resumeCommand: 'evaluate({ identifier: "run-1", resume: true, … })',
    });
  });

  it("never checks a pid on another host", () => {
    const run = makeStoredRun({ owner: makeRunOwner({ heartbeatAt }) });
    expect(
      runLiveness(run, { now: now(1), hostname: "laptop", isProcessAlive: noProcessAlive }).stale,
    ).toBe(false);
  });

  it("judges a run stored before heartbeats by its start", () => {
    const run = makeStoredRun({ startedAt: "2025-01-01T10:00:00.000Z", owner: null });
    const options = { hostname: "build-host", isProcessAlive: noProcessAlive };
    const started = Date.parse(run.startedAt);
    expect(runLiveness(run, { ...options, now: started + 60_000 }).stale).toBe(false);
    expect(runLiveness(run, { ...options, now: started + 600_000 })).toMatchObject({
      status: "interrupted",
      reason: "no heartbeat recorded; started 600 s ago",
    });
  });

  it("leaves finished runs as stored, whatever their owner", () => {
    for (const status of ["completed", "interrupted", "failed", "quota-exhausted"] as const) {
      const run = makeStoredRun({
        status,
        summary: makeSummary({ status }),
        owner: makeRunOwner(),
      });
      expect(
        runLiveness(run, {
          now: now(10_000),
          hostname: "build-host",
          isProcessAlive: noProcessAlive,
        }),
      ).toEqual({ status, stale: false, reason: null, resumeCommand: null });
    }
  });

  it("tells a Vitest run to run again, since it cannot resume", () => {
    const run = makeStoredRun({
      identifier: "pr 42",
      config: { runner: "vitest" },
      owner: makeRunOwner(),
    });
    expect(
      runLiveness(run, { now: now(1), hostname: "build-host", isProcessAlive: noProcessAlive })
        .resumeCommand,
    ).toBe("verdict test run --identifier 'pr 42' (cached judge answers are not paid again)");
  });
});

describe("isProcessAlive", () => {
  it("finds this process, and not a pid that cannot exist", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    // Above Linux's pid_max (4194304) and macOS's: never a live process.
    expect(isProcessAlive(2 ** 30)).toBe(false);
  });
});
