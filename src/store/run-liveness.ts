import type { RunStatus } from "../results/evaluation-result.ts";
import type { StoredRun } from "./run-store.ts";

/** How often an open run refreshes its heartbeat in the store. */
export const HEARTBEAT_INTERVAL_MS = 15_000;

/**
 * A `running` run whose last heartbeat is older than this is shown as interrupted: eight
 * missed heartbeats, so a busy event loop or a slow disk is never taken for a dead process.
 */
export const STALE_AFTER_MS = 120_000;

/**
 * How far another machine's clock may differ from this one's. A heartbeat written on another
 * host (or by an unknown one) is read with this margin on top of {@link STALE_AFTER_MS}, so a
 * live run on a machine whose clock is a few minutes behind is not shown as interrupted; a
 * heartbeat further ahead than this cannot be judged by age at all.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 600_000;

/** Options of {@link runLiveness}: the clock and the process table, injected. */
export interface RunLivenessOptions {
  /** Now, in milliseconds since the epoch. */
  now: number;
  /** This machine's host name (`os.hostname()`): pids are only checked on the same host. */
  hostname: string;
  /** Whether a process with this id exists on this host. @default {@link isProcessAlive} */
  isProcessAlive?: (pid: number) => boolean;
  /** @default {@link STALE_AFTER_MS} */
  staleAfterMs?: number;
  /** @default {@link CLOCK_SKEW_ALLOWANCE_MS} */
  clockSkewAllowanceMs?: number;
}

/** What a stored run is, as `verdict view` and `verdict compare` show it. */
export interface RunLiveness {
  /** The stored status, except `"interrupted"` for a `running` run whose process is gone. */
  status: RunStatus;
  /** A `running` run shown as interrupted. */
  stale: boolean;
  /** Why it is stale, e.g. `process 4242 on build-1 is gone`; `null` when it is not. */
  reason: string | null;
  /** How to finish it; `null` when it is not stale. */
  resumeCommand: string | null;
}

/**
 * Whether a process with this id exists on this machine (`process.kill(pid, 0)`): `ESRCH` means
 * gone; `EPERM` means it exists under another user.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Tells a run in progress from one whose process died (SIGKILL, a crash, a lost machine): a
 * `running` run is stale when its owner is on this host and its pid no longer exists, or when
 * its last heartbeat (its start, for runs stored before heartbeats) is older than
 * `staleAfterMs`. Other statuses are returned as stored.
 *
 * A heartbeat is a time on the writer's clock, read against this machine's. One written on
 * another host (or by an unknown one) must be older than `staleAfterMs` plus
 * `clockSkewAllowanceMs` (10 minutes) before the run is called stale; a heartbeat in the
 * future counts as "now". One more than `clockSkewAllowanceMs` in the future says the clocks
 * disagree too much to judge by age: the run is shown as interrupted, saying so, rather than
 * alive until this clock catches up (a day, for a writer a day ahead).
 */
export function runLiveness(run: StoredRun, options: RunLivenessOptions): RunLiveness {
  const alive: RunLiveness = {
    status: run.status,
    stale: false,
    reason: null,
    resumeCommand: null,
  };
  if (run.status !== "running") return alive;
  const owner = run.owner ?? null;
  const staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  let reason: string | null = null;
  if (owner !== null && owner.hostname === options.hostname) {
    const exists = options.isProcessAlive ?? isProcessAlive;
    if (!exists(owner.pid)) reason = `process ${owner.pid} on ${owner.hostname} is gone`;
  }
  if (reason === null) {
    const sameClock = owner !== null && owner.hostname === options.hostname;
    const skewAllowanceMs = options.clockSkewAllowanceMs ?? CLOCK_SKEW_ALLOWANCE_MS;
    const written = Date.parse(owner?.heartbeatAt ?? run.startedAt);
    const aheadMs = written - options.now;
    const lastSeen = Math.min(written, options.now);
    const silentMs = options.now - lastSeen;
    if (aheadMs > skewAllowanceMs) {
      const where = owner === null ? "its start" : `the last heartbeat from ${owner.hostname}`;
      reason = `${where} is ${formatAhead(aheadMs)} ahead of this machine's clock, too far to tell whether it still runs (check both clocks)`;
    } else if (
      Number.isNaN(written) ||
      silentMs > staleAfterMs + (sameClock ? 0 : skewAllowanceMs)
    ) {
      const seconds = Math.round(silentMs / 1000);
      reason =
        owner === null
          ? `no heartbeat recorded; started ${Number.isNaN(seconds) ? "at an unknown time" : `${seconds} s ago`}`
          : `no heartbeat for ${seconds} s from process ${owner.pid} on ${owner.hostname}`;
    }
  }
  if (reason === null) return alive;
  return { status: "interrupted", stale: true, reason, resumeCommand: resumeCommandOf(run) };
}

/**
 * Whether the `verdict test run --watch` session that stored `run` still runs: `"watching"`
 * while its process lives (a newer run of its identifier may follow), `"ended"` once it is
 * gone; `null` for a run stored outside a watch session. The process is told alive as a
 * running run's is ({@link runLiveness}): by its pid on this host, and by the heartbeat the
 * session keeps writing on its latest run while it waits for a save.
 */
export function watchSessionOf(
  run: StoredRun,
  options: RunLivenessOptions,
): "watching" | "ended" | null {
  if (run.config.watch !== true) return null;
  return runLiveness({ ...run, status: "running" }, options).stale ? "ended" : "watching";
}

function formatAhead(milliseconds: number): string {
  const minutes = Math.round(milliseconds / 60_000);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/**
 * How to finish a run: `evaluate()` runs resume; a Vitest run is run again (its judge answers
 * are cached); a fine-tuning checkpoint's run is finished by watching its job again. For a run
 * that shards share, the shard whose process is gone (the run's owner) is named, with the run
 * group its shards were started with.
 */
export function resumeCommandOf(run: StoredRun): string {
  const name = JSON.stringify(run.identifier ?? run.id);
  const finetune = (run.config.metadata as { finetune?: { job?: unknown } } | undefined)?.finetune;
  if (typeof finetune?.job === "string") {
    return `verdict finetune watch ${shellWord(finetune.job)} with the same options (checkpoints already scored are kept)`;
  }
  const part = run.shards?.parts.find(
    (candidate) =>
      candidate.owner !== null &&
      run.owner !== null &&
      run.owner !== undefined &&
      candidate.owner.pid === run.owner.pid &&
      candidate.owner.hostname === run.owner.hostname &&
      candidate.owner.heartbeatAt === run.owner.heartbeatAt,
  );
  const shard = part === undefined ? null : `${part.shard}/${run.shards?.count}`;
  const group = typeof run.config.runGroup === "string" ? run.config.runGroup : null;
  const withGroup = (command: string) =>
    group === null ? command : `VERDICT_RUN_GROUP=${shellWord(group)} ${command}`;
  if (run.config.runner === "vitest") {
    const sharded = shard === null ? "" : ` --shard ${shard}`;
    return run.identifier === null
      ? withGroup(
          `verdict test run${sharded} --identifier NAME (cached judge answers are not paid again)`,
        )
      : withGroup(
          `verdict test run${sharded} --identifier ${shellWord(run.identifier)} (cached judge answers are not paid again)`,
        );
  }
  const sharded = shard === null ? "" : ` shard: "${shard}",`;
  return withGroup(`evaluate({ identifier: ${name},${sharded} resume: true, … })`);
}

/** `text` as one word of a shell command: as it is when plain, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w./:@=+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
