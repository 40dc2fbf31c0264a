import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { isProcessAlive } from "./run-liveness.ts";

/**
 * Who holds a judge cache lease, written into the lease itself: `<host>:<pid>:<start>:<tag>:<n>`.
 * - `host`: this machine as processes that share a store can compare it (see
 *   {@link leaseHostId}): its host name, with the boot id and the pid namespace on Linux;
 * - `pid` and `start`: the process and when it started (`/proc/<pid>/stat`, clock ticks since
 *   boot; `-` where unknown), so that a pid reused by another process is not taken for it;
 * - `tag`, `n`: a random tag of the process and a counter, unique to one claim.
 * Leases written by older versions (`<host name>:<pid>:<tag>:<n>`) name no boot id: they are
 * never taken over early, only once they expire.
 */
export interface LeaseHolder {
  host: string;
  pid: number;
  /** When the process started, as `/proc/<pid>/stat` tells it; `null` where unknown. */
  start: string | null;
}

const UNKNOWN_START = "-";

function readOrNull(read: () => string): string | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/**
 * When process `pid` of this machine started, in clock ticks since boot (field 22 of
 * `/proc/<pid>/stat`), or `null` where there is no `/proc` or no such process.
 */
export function processStartTime(pid: number): string | null {
  const stat = readOrNull(() => readFileSync(`/proc/${pid}/stat`, "utf8"));
  if (stat === null) return null;
  // Fields after the command name, which is in parentheses and may hold spaces: state is
  // field 3, the start time field 22.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = fields[22 - 3];
  return start !== undefined && /^\d+$/.test(start) ? start : null;
}

let hostIdCache: string | null | undefined;

/**
 * This machine as lease holders name it, so that a claimant can tell whether a lease's holder
 * is a process it can look up: `<host name>@<boot id>-<pid namespace>` on Linux, where two
 * containers sharing a host name (host networking, one `--hostname`) differ by their pid
 * namespace and a rebooted machine by its boot id; the host name alone where there is no
 * `/proc` (macOS, Windows). `null` on a Linux whose boot id or pid namespace cannot be read:
 * then this process never takes a lease over early, and nobody takes over its leases early.
 */
export function leaseHostId(): string | null {
  if (hostIdCache !== undefined) return hostIdCache;
  const name = hostname().replaceAll(/[:\s]/g, "_") || "unknown-host";
  const bootId = readOrNull(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8"));
  const pidNamespace = readOrNull(() => readlinkSync("/proc/self/ns/pid"))?.replaceAll(/\D/g, "");
  if (process.platform !== "linux") hostIdCache = name;
  else if (bootId === null || !pidNamespace) hostIdCache = null;
  else hostIdCache = `${name}@${bootId.trim().replaceAll("-", "").slice(0, 16)}-${pidNamespace}`;
  return hostIdCache;
}

const processTag = Math.random().toString(36).slice(2, 10);
let claims = 0;
// This process's start time, read once: it names every claim, and a read of /proc per claim
// was a synchronous file read on the path of every judge request of a shared cache.
let ownStart: string | null | undefined;
const ownStartTime = (): string | null => {
  if (ownStart === undefined) ownStart = processStartTime(process.pid);
  return ownStart;
};

/**
 * A holder name of the {@link LeaseHolder} format: `claim` tells claims of one process apart.
 * @example
 * formatLeaseHolder({ host: leaseHostId() ?? "h", pid: 4242, start: null, claim: "test:1" });
 */
export function formatLeaseHolder(options: LeaseHolder & { claim: string }): string {
  return `${options.host}:${options.pid}:${options.start ?? UNKNOWN_START}:${options.claim}`;
}

/** The holder name of one claim by this process: unique to it (see {@link LeaseHolder}). */
export function leaseHolder(): string {
  claims += 1;
  // A process whose host cannot be told apart names a host nobody else names.
  const host = leaseHostId() ?? `${hostname().replaceAll(/[:\s]/g, "_")}@unknown-${processTag}`;
  return formatLeaseHolder({
    host,
    pid: process.pid,
    start: ownStartTime(),
    claim: `${processTag}:${claims}`,
  });
}

/** The host and process of a holder name written by {@link leaseHolder}; `null` for others. */
export function parseLeaseHolder(holder: string): LeaseHolder | null {
  const parts = holder.split(":");
  if (parts.length !== 5) return null;
  const [host = "", pid = "", start = ""] = parts;
  if (host === "" || !/^\d+$/.test(pid) || !(start === UNKNOWN_START || /^\d+$/.test(start))) {
    return null;
  }
  return { host, pid: Number(pid), start: start === UNKNOWN_START ? null : start };
}

/** Options of {@link isLeaseHolderGone}: this machine and its process table, injectable. */
export interface LeaseHolderGoneOptions {
  /** @default {@link leaseHostId} */
  hostId?: string | null;
  /** @default {@link isProcessAlive} (`process.kill(pid, 0)`: ESRCH is gone, EPERM alive) */
  isProcessAlive?: (pid: number) => boolean;
  /** @default {@link processStartTime} */
  startTimeOf?: (pid: number) => string | null;
}

/**
 * Whether a lease's holder is a process of this machine that is gone: its pid no longer
 * exists, or now belongs to a process that started at another time (the pid was reused). Then
 * the lease can be taken over at once instead of waited out. A holder of another machine, of
 * an unknown format, or whose process cannot be looked up is never gone: its lease expires.
 */
export function isLeaseHolderGone(holder: string, options: LeaseHolderGoneOptions = {}): boolean {
  const parsed = parseLeaseHolder(holder);
  const hostId = options.hostId === undefined ? leaseHostId() : options.hostId;
  if (parsed === null || hostId === null || parsed.host !== hostId) return false;
  if (!(options.isProcessAlive ?? isProcessAlive)(parsed.pid)) return true;
  if (parsed.start === null) return false;
  const start = (options.startTimeOf ?? processStartTime)(parsed.pid);
  return start !== null && start !== parsed.start;
}
