import { RunHeartbeat } from "../../evaluate/run-heartbeat.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { openStore, type StoreOption } from "../../store/open-store.ts";
import { HEARTBEAT_INTERVAL_MS } from "../../store/run-liveness.ts";
import type { Store } from "../../store/run-store.ts";

/** Options of {@link WatchHeartbeat.open}. */
export interface OpenWatchHeartbeatOptions {
  /** The store, as `verdict test run` resolves it. @default the default store */
  store?: StoreOption;
  /** Where `VERDICT_STORE` and `VERDICT_HOME` are read: the store the session's runs go to. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where a failed heartbeat is reported (once). */
  warn: (message: string) => void;
  /** @default {@link HEARTBEAT_INTERVAL_MS} */
  intervalMs?: number;
}

/**
 * The watch session's sign of life between runs. A run's own heartbeat stops when it ends;
 * this one goes on writing the owner (this process) and the time on the session's latest run
 * while the session waits for a save, so that `verdict view` can tell a session that waits
 * (its run page follows the next run) from one that is gone, on this host or another, however
 * long the wait. A store that cannot be opened or written only makes the session look ended.
 */
export class WatchHeartbeat {
  private readonly store: Store | null;
  private readonly owned: boolean;
  private readonly heartbeat: RunHeartbeat;
  private runId: string | null = null;

  private constructor(options: {
    store: Store | null;
    owned: boolean;
    warn: (message: string) => void;
    intervalMs: number;
  }) {
    this.store = options.store;
    this.owned = options.owned;
    this.heartbeat = new RunHeartbeat({
      write: async (owner) => {
        const runId = this.runId;
        if (runId !== null) await this.store?.runs.heartbeatRun({ runId, owner });
      },
      warn: options.warn,
      intervalMs: options.intervalMs,
    });
  }

  /**
   * Opens the session's store for its heartbeats. The runs themselves are stored by the
   * `VerdictReporter`, which reports a store it cannot open: this one then stays silent.
   */
  static async open(options: OpenWatchHeartbeatOptions): Promise<WatchHeartbeat> {
    const intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
    const warn = (message: string) => options.warn(redactSecretText(message));
    try {
      const opened = await openStore({
        env: options.env,
        cwd: options.cwd,
        ...(options.store === undefined ? {} : { store: options.store }),
      });
      return new WatchHeartbeat({ store: opened.store, owned: opened.owned, warn, intervalMs });
    } catch {
      return new WatchHeartbeat({ store: null, owned: false, warn, intervalMs });
    }
  }

  /** The session waits after run `runId`: beat for it from now on. */
  follow(runId: string): void {
    if (this.store === null) return;
    this.runId = runId;
    this.heartbeat.caseStored();
    this.heartbeat.start();
  }

  /** A run starts: its own heartbeat takes over until it ends. */
  async pause(): Promise<void> {
    this.runId = null;
    await this.heartbeat.stop();
  }

  /** Stops beating and closes the store it opened. */
  async close(): Promise<void> {
    await this.pause();
    if (this.owned) await this.store?.close();
  }
}
