import { describe, expect, it } from "vitest";
import { makeRunOwner, makeStoredRun, makeSummary } from "../testing/store-contract.ts";
import {
  CLOCK_SKEW_ALLOWANCE_MS,
  isProcessAlive,
  runLiveness,
  STALE_AFTER_MS,
  watchSessionOf,
} from "./run-liveness.ts";

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
    // On the owner's host (the same clock), with its pid taken by another process.
    const options = { hostname: "build-host", isProcessAlive: everyProcessAlive };
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

  it("reads another host's heartbeat with a clock skew allowance on top of the threshold", () => {
    const run = makeStoredRun({ owner: makeRunOwner({ heartbeatAt }) });
    const options = { hostname: "laptop", isProcessAlive: noProcessAlive };
    // A live run on a machine whose clock is 3 minutes behind: its heartbeat looks 3 min old.
    expect(runLiveness(run, { ...options, now: now(180) }).stale).toBe(false);
    const limit = (STALE_AFTER_MS + CLOCK_SKEW_ALLOWANCE_MS) / 1000;
    expect(runLiveness(run, { ...options, now: now(limit) }).stale).toBe(false);
    expect(runLiveness(run, { ...options, now: now(limit + 1) })).toMatchObject({
      status: "interrupted",
      reason: `no heartbeat for ${limit + 1} s from process 4242 on build-host`,
    });
  });

  it("counts a heartbeat a little in the future as now", () => {
    const run = makeStoredRun({ owner: makeRunOwner({ heartbeatAt }) });
    for (const hostname of ["laptop", "build-host"]) {
      const liveness = runLiveness(run, {
        now: now(-CLOCK_SKEW_ALLOWANCE_MS / 1000),
        hostname,
        isProcessAlive: everyProcessAlive,
      });
      expect(liveness.stale).toBe(false);
    }
  });

  it("does not take a heartbeat far in the future for a live run, and says why", () => {
    // The writer's clock is a day ahead and it was killed an hour ago.
    const run = makeStoredRun({ owner: makeRunOwner({ heartbeatAt }) });
    const dayAhead = now(-(24 * 3600 - 3600));
    expect(runLiveness(run, { now: dayAhead, hostname: "laptop" })).toMatchObject({
      status: "interrupted",
      stale: true,
      reason:
        "the last heartbeat from build-host is 23 h ahead of this machine's clock, too far to tell whether it still runs (check both clocks)",
    });
    // On its own host too (the clock was set back), even when its pid is taken by another process.
    expect(
      runLiveness(run, {
        now: now(-(CLOCK_SKEW_ALLOWANCE_MS / 1000 + 60)),
        hostname: "build-host",
        isProcessAlive: everyProcessAlive,
      }),
    ).toMatchObject({ stale: true, reason: expect.stringMatching(/is 11 min ahead/) });
  });

  it("judges a run stored before heartbeats by its start", () => {
    const run = makeStoredRun({ startedAt: "2025-01-01T10:00:00.000Z", owner: null });
    const options = { hostname: "build-host", isProcessAlive: noProcessAlive };
    const started = Date.parse(run.startedAt);
    // Its host is unknown: read with the clock skew allowance too.
    expect(runLiveness(run, { ...options, now: started + 600_000 }).stale).toBe(false);
    expect(runLiveness(run, { ...options, now: started + 900_000 })).toMatchObject({
      status: "interrupted",
      reason: "no heartbeat recorded; started 900 s ago",
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

describe("runLiveness of a run that shards share", () => {
  const part = (shard: number, pid: number, beat: string, status: "running" | "completed") => ({
    shard,
    status,
    startedAt: "2025-01-01T10:00:00.000Z",
    endedAt: null,
    summary: null,
    owner: makeRunOwner({ pid, hostname: `machine-${shard}`, heartbeatAt: beat }),
  });

  it("is as alive as its stalest running part, and names that shard to run again", () => {
    const parts = [
      part(1, 11, "2025-01-01T10:00:00.000Z", "completed"),
      part(2, 22, heartbeatAt, "running"),
    ];
    const run = makeStoredRun({
      identifier: "nightly",
      config: { runner: "vitest", runGroup: "github:acme/app:912" },
      owner: parts[1]?.owner ?? null,
      shards: { count: 2, parts },
    });
    const later = now(CLOCK_SKEW_ALLOWANCE_MS / 1000 + STALE_AFTER_MS / 1000 + 1);
    expect(runLiveness(run, { now: later, hostname: "ci-summary" })).toMatchObject({
      status: "interrupted",
      reason: expect.stringContaining("process 22 on machine-2"),
      resumeCommand:
        "VERDICT_RUN_GROUP=github:acme/app:912 verdict test run --shard 2/2 --identifier nightly (cached judge answers are not paid again)",
    });
    const evaluated = { ...run, config: { runGroup: "build 7" } };
    expect(runLiveness(evaluated, { now: later, hostname: "ci-summary" }).resumeCommand).toBe(
      `VERDICT_RUN_GROUP='build 7' evaluate({ identifier: "nightly", shard: "2/2", resume: true, … })`,
    );
  });
});

describe("resumeCommandOf a fine-tuning checkpoint's run", () => {
  it("tells to watch the job again, which scores only what is missing", () => {
    const run = makeStoredRun({
      identifier: "finetune:ftjob-abc",
      config: { metadata: { finetune: { job: "ftjob-abc", checkpoint: "ftckpt_1", step: 10 } } },
      owner: makeRunOwner(),
    });
    expect(
      runLiveness(run, { now: now(1), hostname: "build-host", isProcessAlive: noProcessAlive })
        .resumeCommand,
    ).toBe(
      "verdict finetune watch ftjob-abc with the same options (checkpoints already scored are kept)",
    );
  });
});

describe("isProcessAlive", () => {
  it("finds this process, and not a pid that cannot exist", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    // Above Linux's pid_max (4194304) and macOS's: never a live process.
    expect(isProcessAlive(2 ** 30)).toBe(false);
  });
});

describe("watchSessionOf", () => {
  const watchRun = (owner = makeRunOwner({ heartbeatAt })) =>
    makeStoredRun({
      identifier: "watch-20250101-100000-beef",
      status: "completed",
      config: { runner: "vitest", watch: true },
      owner,
    });

  it("tells a watch session's run by its process and the heartbeat it keeps between runs", () => {
    const options = { now: now(1), hostname: "build-host" };
    expect(watchSessionOf(watchRun(), { ...options, isProcessAlive: everyProcessAlive })).toBe(
      "watching",
    );
    expect(watchSessionOf(watchRun(), { ...options, isProcessAlive: noProcessAlive })).toBe(
      "ended",
    );
    // A session that stopped beating (stuck, or its store lost) is not waited for.
    expect(
      watchSessionOf(watchRun(), {
        ...options,
        now: now(STALE_AFTER_MS / 1000 + 1),
        isProcessAlive: everyProcessAlive,
      }),
    ).toBe("ended");
  });

  it("on another host, by the last heartbeat, with the clock allowance", () => {
    const options = { hostname: "laptop", isProcessAlive: noProcessAlive };
    const allowed = (STALE_AFTER_MS + CLOCK_SKEW_ALLOWANCE_MS) / 1000;
    expect(watchSessionOf(watchRun(), { ...options, now: now(allowed) })).toBe("watching");
    expect(watchSessionOf(watchRun(), { ...options, now: now(allowed + 1) })).toBe("ended");
  });

  it("is null for a run stored outside a watch session", () => {
    const run = makeStoredRun({ status: "completed", owner: makeRunOwner({ heartbeatAt }) });
    expect(
      watchSessionOf(run, {
        now: now(1),
        hostname: "build-host",
        isProcessAlive: everyProcessAlive,
      }),
    ).toBeNull();
  });
});
