import { hostname } from "node:os";
import type { RunOwner } from "../store/run-store.ts";

// A heartbeat also rides on stored cases, but not more often than this: one extra write a
// second at most, whatever the pace of the run.
const CASE_HEARTBEAT_MIN_MS = 1000;

/**
 * The open run's heartbeat: its owner (this process) and the time it was last heard from,
 * written every `intervalMs` and with stored cases (at most once a second), so that
 * `verdict view` and `compare` can tell a run whose process died from one in progress. A
 * missed heartbeat costs nothing but a stale look: it never stops the run, and its failure is
 * reported once.
 */
export class RunHeartbeat {
  private readonly write: (owner: RunOwner) => Promise<void>;
  private readonly warn: (message: string) => void;
  private readonly intervalMs: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private last = 0;
  private failed = false;
  private inFlight: Promise<void> | null = null;

  constructor(options: {
    write: (owner: RunOwner) => Promise<void>;
    warn: (message: string) => void;
    intervalMs: number;
  }) {
    this.write = options.write;
    this.warn = options.warn;
    this.intervalMs = options.intervalMs;
  }

  /** This process as the run's owner, heard from now. */
  owner(): RunOwner {
    this.last = Date.now();
    return {
      pid: process.pid,
      hostname: hostname(),
      heartbeatAt: new Date(this.last).toISOString(),
    };
  }

  // Unref'd: an open run's heartbeat never keeps the process alive on its own.
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  /** A case was stored: beats when the last beat is over a second old. */
  caseStored(): void {
    if (Date.now() - this.last >= CASE_HEARTBEAT_MIN_MS) void this.beat();
  }

  /** Stops beating and waits for a beat in flight. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  private beat(): Promise<void> {
    // One beat at a time: a slow store gets no queue of them.
    if (this.inFlight !== null) return this.inFlight;
    const beat = this.write(this.owner())
      .catch((error: unknown) => {
        if (this.failed) return;
        this.failed = true;
        this.warn(
          `Warning: the run's heartbeat could not be stored (later failures are not repeated): ${(error as Error).message}`,
        );
      })
      .finally(() => {
        this.inFlight = null;
      });
    this.inFlight = beat;
    return beat;
  }
}
