import type { PostgresAccess } from "./postgres-access.ts";
import type { PostgresKeyListener } from "./postgres-key-listener.ts";
import { encodeKeyNotice, toCachedAnswer } from "./postgres-key-notice.ts";
import type { JudgeLeases } from "./run-store.ts";

// How many keys this store answered it remembers (see AnsweredKeys).
const ANSWERED_KEYS_LIMIT = 10_000;

/**
 * Keys whose answer this store just wrote: writing an answer ends every lease on its key, so
 * the release its holder sends next (claimWithLease releases after the call, answered or not)
 * could delete nothing and is skipped — one round trip less per paid judge call.
 */
export class AnsweredKeys {
  private readonly keys = new Set<string>();

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > ANSWERED_KEYS_LIMIT) {
      const oldest = this.keys.values().next();
      if (oldest.done !== true) this.keys.delete(oldest.value);
    }
  }

  /** Whether `key` was answered since it was last asked about (asking forgets it). */
  take(key: string): boolean {
    return this.keys.delete(key);
  }
}

/**
 * Leases on the PostgreSQL store's judge cache keys (`judge_leases`), judged by the server's
 * clock so that every machine reads expiry alike. Letting a lease go notifies `channel` with
 * the key, as storing the answer does; `listener` wakes the processes waiting for that key.
 */
export function createPostgresJudgeLeases(options: {
  access: PostgresAccess;
  channel: string;
  listener: PostgresKeyListener;
  /** Keys this store's judge cache answered: their leases are over already. */
  answered: AnsweredKeys;
  leaseMs: number;
}): Required<JudgeLeases> {
  const { access, channel, listener, answered } = options;
  const leases = access.table("judge_leases");
  const cache = access.table("judge_cache");
  const answerColumns = "text, object, input_tokens, output_tokens, cost_usd";
  return {
    leaseMs: options.leaseMs,
    tryClaim: (key, holder, leaseMs) =>
      access.use(`claim judge cache entry "${key}"`, async () => {
        // The answer a notice just brought (see waitForKey): no need to read it again.
        const notified = listener.takeAnswer(key);
        if (notified !== undefined) return { answer: notified };
        if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
          throw access.failure(
            `claim judge cache entry "${key}"`,
            "leaseMs must be a positive number",
          );
        }
        const [k, h, milliseconds] = [access.literal(key), access.literal(holder), leaseMs];
        // Two statements in one round trip, each seeing what committed before it began. The
        // first: the answer if cached (a hit, the common case once a suite has run), else the
        // lease when it is free or expired. The second, once the lease is taken: the answer
        // again, since its former holder may have written it (ending its lease) after the first
        // read the cache; the lease is then given back.
        const [claimed, after] = await access.runScript(`
          WITH cached AS (SELECT true AS found, ${answerColumns} FROM ${cache} WHERE key = ${k}),
               taken AS (
                 INSERT INTO ${leases} (key, holder, expires_at)
                 SELECT ${k}, ${h}, clock_timestamp() + ${milliseconds} * interval '1 millisecond'
                 WHERE NOT EXISTS (SELECT 1 FROM cached)
                 ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                 WHERE ${leases}.expires_at < clock_timestamp()
                 RETURNING holder
               )
          SELECT EXISTS (SELECT 1 FROM taken) AS leased, cached.*
          FROM (VALUES (1)) AS one LEFT JOIN cached ON true;
          WITH mine AS (SELECT 1 FROM ${leases} WHERE key = ${k} AND holder = ${h}),
               answer AS (
                 SELECT ${answerColumns} FROM ${cache}
                 WHERE key = ${k} AND EXISTS (SELECT 1 FROM mine)
               ),
               given_back AS (
                 DELETE FROM ${leases} WHERE key = ${k} AND holder = ${h}
                 AND EXISTS (SELECT 1 FROM answer)
               )
          SELECT * FROM answer`);
        const row = claimed?.rows[0];
        if (row?.found === true) return { answer: toCachedAnswer(row) };
        // Another holder's live lease: wait (a later look reads its answer).
        if (row?.leased !== true) return { leased: false };
        const stored = after?.rows[0];
        return stored === undefined ? { leased: true } : { answer: toCachedAnswer(stored) };
      }),

    renew: (key, holder, leaseMs) =>
      access.use(`renew the lease on judge cache entry "${key}"`, async () => {
        await access.run([
          {
            text: `UPDATE ${leases} SET expires_at = clock_timestamp() + $3 * interval '1 millisecond'
                   WHERE key = $1 AND holder = $2`,
            values: [key, holder, leaseMs],
          },
        ]);
      }),

    release: (key, holder) =>
      access.use(`release the lease on judge cache entry "${key}"`, async () => {
        if (answered.take(key)) return;
        // The lease ends and its waiters are told in one statement: one of them takes over.
        await access.run([
          {
            text: `WITH released AS (DELETE FROM ${leases} WHERE key = $1 AND holder = $2 RETURNING key)
                   SELECT pg_notify($3, $4) FROM released`,
            values: [key, holder, channel, encodeKeyNotice(key)],
          },
        ]);
      }),

    waitForKey: (key, waitOptions) => listener.waitForKey(key, waitOptions),
  };
}
