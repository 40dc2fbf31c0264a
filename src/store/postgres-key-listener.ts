import { createHash } from "node:crypto";
import type { Client, ClientConfig, Notification } from "pg";
import { noticeAnswer, noticeKey } from "./postgres-key-notice.ts";
import { type PostgresDriver, refConnection, unrefConnection } from "./postgres-pool.ts";
import type { CachedJudgeAnswer } from "./run-store.ts";

/**
 * The notification channel on which a schema's judge cache says that a key's answer landed or
 * its lease was let go (`pg_notify(channel, key)`). Channels are per database; one per schema
 * keeps stores in different schemas apart. An identifier (at most 63 bytes), hence the hash.
 */
export function judgeKeyChannel(schema: string): string {
  const hash = createHash("sha256").update(schema).digest("hex").slice(0, 12);
  return `verdict_${schema.slice(0, 32)}_${hash}`;
}

// A notification that came before anyone waited for its key is kept this long: the waiter
// that read the key just before it was written (its look and its wait are two steps) wakes at
// once instead of at its timeout.
const EARLY_NOTICE_MS = 500;
const EARLY_NOTICE_LIMIT = 10_000;
// After a failed start, waiters fall back to their timeout for this long before the next try.
const RETRY_AFTER_MS = 1000;
// An answer a notice brought to a waiter is kept this long for its next look, and so many.
const NOTIFIED_ANSWER_MS = 2000;
const NOTIFIED_ANSWER_LIMIT = 1000;

/**
 * Waits for keys of the judge cache on one connection of its own that LISTENs on the schema's
 * channel (started on the first wait, so only a process that waits holds one): a waiter wakes
 * when the answer lands or the lease is let go, instead of polling. A broken connection (a
 * restart, a failover, a terminated backend) is opened again and LISTENs again at once while
 * anyone waits (every second while the server is away), then wakes every waiter to look
 * again, since notices sent meanwhile were lost; until then waiters fall back to their
 * timeout. The connection never keeps the process alive; the waits' timers do.
 */
export class PostgresKeyListener {
  private readonly driver: PostgresDriver;
  private readonly config: ClientConfig;
  private readonly channel: string;
  private client: Client | null = null;
  private starting = false;
  private closed = false;
  private retryAt = 0;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly early = new Map<string, number>();
  private readonly answers = new Map<string, { answer: CachedJudgeAnswer; at: number }>();

  constructor(options: { driver: PostgresDriver; config: ClientConfig; channel: string }) {
    this.driver = options.driver;
    this.config = options.config;
    this.channel = options.channel;
  }

  /**
   * Resolves when `key` is notified, or after `timeoutMs`; rejects with the signal's reason when
   * it aborts. Resolves at once when the listener is closed or has just started (a notification
   * sent before it listened is lost: look again). A notice that carries the answer leaves it
   * for {@link PostgresKeyListener.takeAnswer}.
   */
  waitForKey(
    key: string,
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.closed) return Promise.resolve();
    const notifiedAt = this.early.get(key);
    if (notifiedAt !== undefined) {
      this.early.delete(key);
      if (Date.now() - notifiedAt <= EARLY_NOTICE_MS) return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiters = this.waiters.get(key) ?? new Set();
      this.waiters.set(key, waiters);
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
      };
      const wake = () => {
        finish();
        resolve();
      };
      const onAbort = () => {
        finish();
        reject(signal?.reason);
      };
      const timer = setTimeout(wake, Math.max(0, options.timeoutMs));
      waiters.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.start();
    });
  }

  /**
   * The answer that a notice about `key` brought while this process waited for it, once: what
   * the waiter's next look returns without reading the cache again.
   */
  takeAnswer(key: string): CachedJudgeAnswer | undefined {
    const notified = this.answers.get(key);
    if (notified === undefined) return undefined;
    this.answers.delete(key);
    return Date.now() - notified.at <= NOTIFIED_ANSWER_MS ? notified.answer : undefined;
  }

  /** Closes the connection and wakes every waiter. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    this.answers.clear();
    this.wakeAll();
    const client = this.client;
    this.client = null;
    if (client === null) return;
    // Unref'd while it listened; closing must keep the process alive until it is done.
    refConnection(client);
    await client.end().catch(() => {});
  }

  private start(): void {
    if (this.client !== null || this.starting || this.closed) return;
    if (Date.now() < this.retryAt) return;
    this.starting = true;
    // It only listens: without TCP keepalives soon, a connection lost in silence (a dropped
    // network) would go unnoticed, its waiters left to their timeouts until it is found out.
    const client = new this.driver.Client({ ...this.config, keepAliveInitialDelayMillis: 10_000 });
    const drop = () => {
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => {});
      this.restartSoon();
    };
    client.on("error", drop);
    client.on("end", drop);
    client.on("notification", (message: Notification) => {
      if (message.channel === this.channel && message.payload !== undefined) {
        this.notified(message.payload);
      }
    });
    (async () => {
      await client.connect();
      unrefConnection(client);
      await client.query(`LISTEN "${this.channel}"`);
    })().then(
      () => {
        this.starting = false;
        if (this.closed) {
          client.end().catch(() => {});
          return;
        }
        this.client = client;
        // What was notified before LISTEN took effect is lost: every waiter looks again.
        this.wakeAll();
      },
      () => {
        this.starting = false;
        this.retryAt = Date.now() + RETRY_AFTER_MS;
        client.end().catch(() => {});
        this.restartSoon();
      },
    );
  }

  /** Starts listening again once it may (see `retryAt`), if anyone still waits. */
  private restartSoon(): void {
    if (this.closed || this.restartTimer !== null || this.waiters.size === 0) return;
    const timer = setTimeout(
      () => {
        this.restartTimer = null;
        if (this.waiters.size > 0) this.start();
      },
      Math.max(0, this.retryAt - Date.now()),
    );
    // The waits' own timers keep the process alive, not this one.
    timer.unref();
    this.restartTimer = timer;
  }

  private notified(payload: string): void {
    const key = noticeKey(payload);
    if (key === null) return;
    const now = Date.now();
    const waiters = this.waiters.get(key);
    if (waiters !== undefined) {
      // Only a notice someone waits for is read whole: every store of the schema sends them.
      const answer = noticeAnswer(payload);
      if (answer !== undefined)
        remember(this.answers, key, { answer, at: now }, NOTIFIED_ANSWER_LIMIT);
      for (const wake of [...waiters]) wake();
      return;
    }
    remember(this.early, key, now, EARLY_NOTICE_LIMIT);
    for (const [earlyKey, at] of this.early) {
      if (now - at <= EARLY_NOTICE_MS) break;
      this.early.delete(earlyKey);
    }
  }

  private wakeAll(): void {
    for (const waiters of [...this.waiters.values()]) {
      for (const wake of [...waiters]) wake();
    }
  }
}

/** Sets `key` last in `entries` (a Map keeps insertion order), dropping the oldest past `limit`. */
function remember<Value>(entries: Map<string, Value>, key: string, value: Value, limit: number) {
  entries.delete(key);
  entries.set(key, value);
  if (entries.size > limit) {
    const oldest = entries.keys().next();
    if (oldest.done !== true) entries.delete(oldest.value);
  }
}
