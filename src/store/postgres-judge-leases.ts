import type { PostgresAccess } from "./postgres-access.ts";
import { cachedAnswerStatement, toCachedAnswer } from "./postgres-judge-cache.ts";
import type { PostgresKeyListener } from "./postgres-key-listener.ts";
import type { JudgeLeases } from "./run-store.ts";

/**
 * Leases on the PostgreSQL store's judge cache keys (`judge_leases`), judged by the server's
 * clock so that every machine reads expiry alike. Letting a lease go notifies `channel` with
 * the key, as storing the answer does; `listener` wakes the processes waiting for that key.
 */
export function createPostgresJudgeLeases(options: {
  access: PostgresAccess;
  channel: string;
  listener: PostgresKeyListener;
}): Required<JudgeLeases> {
  const { access, channel, listener } = options;
  const leases = access.table("judge_leases");
  const cache = access.table("judge_cache");
  return {
    tryClaim: (key, holder, leaseMs) =>
      access.use(`claim judge cache entry "${key}"`, async () => {
        // On one connection, each statement seeing what committed before it: the answer if
        // cached; else the lease when free or expired; once taken, the answer again (its
        // holder may have just written it), giving the lease back if so.
        const [before, leased, after] = await access.run([
          // A hit (the common case once a suite has run) ends the calls here.
          { ...cachedAnswerStatement(access, key), stopIf: "rows" },
          {
            text: `INSERT INTO ${leases} (key, holder, expires_at)
                   SELECT $1, $2, clock_timestamp() + $3 * interval '1 millisecond'
                   WHERE NOT EXISTS (SELECT 1 FROM ${cache} WHERE key = $1)
                   ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                   WHERE ${leases}.expires_at < clock_timestamp()
                   RETURNING holder`,
            values: [key, holder, leaseMs],
            // Another holder's live lease: wait (the next look reads the answer).
            stopIf: "no-rows",
          },
          cachedAnswerStatement(access, key),
          {
            text: `DELETE FROM ${leases} WHERE key = $1 AND holder = $2
                   AND EXISTS (SELECT 1 FROM ${cache} WHERE key = $1)`,
            values: [key, holder],
          },
        ]);
        const row = before?.rows[0] ?? after?.rows[0];
        if (row !== undefined) return { answer: toCachedAnswer(row) };
        return { leased: (leased?.rowCount ?? 0) > 0 };
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
        // The lease ends and its waiters are told in one statement: one of them takes over.
        await access.run([
          {
            text: `WITH released AS (DELETE FROM ${leases} WHERE key = $1 AND holder = $2 RETURNING key)
                   SELECT pg_notify($3, key) FROM released`,
            values: [key, holder, channel],
          },
        ]);
      }),

    waitForKey: (key, waitOptions) => listener.waitForKey(key, waitOptions),
  };
}
