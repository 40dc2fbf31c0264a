import type { PostgresAccess } from "./postgres-access.ts";
import { PostgresBatcher } from "./postgres-batcher.ts";
import type { PostgresKeyListener } from "./postgres-key-listener.ts";
import { encodeKeyNotice, toCachedAnswer } from "./postgres-key-notice.ts";
import { isTransientPostgresError } from "./postgres-retry.ts";
import type { CachedJudgeAnswer, JudgeLeases } from "./run-store.ts";

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
  const claims = new PostgresBatcher<ClaimCall, Claim>({
    failsAll: isTransientPostgresError,
    key: (call) => call.key,
    run: (calls) => claimTogether(access, calls),
  });
  return {
    leaseMs: options.leaseMs,
    tryClaim: (key, holder, leaseMs) => {
      const action = `claim judge cache entry "${key}"`;
      return access.use(action, async () => {
        // The answer a notice just brought (see waitForKey): no need to read it again.
        const notified = listener.takeAnswer(key);
        if (notified !== undefined) return { answer: notified };
        if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
          throw access.failure(action, "leaseMs must be a positive number");
        }
        // Claims are sent as SQL text (values inlined, see claimTogether), which ends at a NUL.
        if (key.includes("\u0000") || holder.includes("\u0000")) {
          throw access.failure(action, "a key or holder may not hold the NUL character");
        }
        return claims.submit({ key, holder, leaseMs });
      });
    },

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

    takeOver: (key, from, holder, leaseMs) =>
      access.use(`take over the lease on judge cache entry "${key}"`, async () => {
        // Only from the holder the claimant found gone: the row lock lets one claimant win.
        const [taken] = await access.run([
          {
            text: `UPDATE ${leases} SET holder = $3, expires_at = clock_timestamp() + $4 * interval '1 millisecond'
                   WHERE key = $1 AND holder = $2`,
            values: [key, from, holder, leaseMs],
          },
        ]);
        return (taken?.rowCount ?? 0) > 0;
      }),

    waitForKey: (key, waitOptions) => listener.waitForKey(key, waitOptions),
  };
}

interface ClaimCall {
  key: string;
  holder: string;
  leaseMs: number;
}

type Claim = { answer: CachedJudgeAnswer } | { leased: boolean; holder?: string };

/** The answer columns of `judge_cache`, of the table or subquery `from` when given. */
function answerColumns(from?: string): string {
  return ["text", "object", "input_tokens", "output_tokens", "cost_usd", "logprobs"]
    .map((column) => (from === undefined ? column : `${from}.${column}`))
    .join(", ");
}

/**
 * Claims keys together (one key once), in one round trip of two statements, values inlined:
 * PostgreSQL runs them in one transaction, each seeing what committed before it began. The
 * first: each key's answer if cached (a hit, the common case once a suite has run), else its
 * lease when free or expired (else who holds it, so that the lease of a process that died on
 * the claimant's machine can be taken over). The second: the answers of the keys whose leases were just
 * taken, since a former holder may have written its answer (ending its lease) after the first
 * read the cache; those leases are given back. Leases are taken in key order, so that
 * batches of several processes never wait on each other in a circle. A holder's own lease is
 * taken again: a claim retried after its commit's answer was lost finds itself the holder.
 */
async function claimTogether(
  access: PostgresAccess,
  calls: readonly ClaimCall[],
): Promise<Claim[]> {
  const leases = access.table("judge_leases");
  const cache = access.table("judge_cache");
  const requests = calls
    .map(
      (call, position) =>
        `(${position}, ${access.literal(call.key)}, ${access.literal(call.holder)}, ${Number(call.leaseMs)})`,
    )
    .join(", ");
  const [claimed, after] = await access.runScript(`
    WITH request (n, key, holder, lease_ms) AS (VALUES ${requests}),
         cached AS (
           SELECT request.n, ${answerColumns("c")}
           FROM request JOIN ${cache} AS c ON c.key = request.key
         ),
         taken AS (
           INSERT INTO ${leases} (key, holder, expires_at)
           SELECT key, holder, clock_timestamp() + lease_ms * interval '1 millisecond' FROM request
           WHERE NOT EXISTS (SELECT 1 FROM cached WHERE cached.n = request.n)
           ORDER BY key
           ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE ${leases}.expires_at < clock_timestamp() OR ${leases}.holder = excluded.holder
           RETURNING key
         )
    SELECT request.n, cached.n IS NOT NULL AS found,
           EXISTS (SELECT 1 FROM taken WHERE taken.key = request.key) AS leased,
           (SELECT l.holder FROM ${leases} AS l WHERE l.key = request.key) AS holder,
           ${answerColumns("cached")}
    FROM request LEFT JOIN cached ON cached.n = request.n;
    WITH request (n, key, holder) AS (VALUES ${calls
      .map(
        (call, position) =>
          `(${position}, ${access.literal(call.key)}, ${access.literal(call.holder)})`,
      )
      .join(", ")}),
         answer AS (
           SELECT request.n, request.key, request.holder, ${answerColumns("c")}
           FROM request
           JOIN ${leases} AS l ON l.key = request.key AND l.holder = request.holder
           JOIN ${cache} AS c ON c.key = request.key
         ),
         given_back AS (
           DELETE FROM ${leases} AS l USING answer
           WHERE l.key = answer.key AND l.holder = answer.holder
         )
    SELECT n, ${answerColumns()} FROM answer`);
  const outcomes: Claim[] = calls.map(() => ({ leased: false }));
  for (const row of claimed?.rows ?? []) {
    const position = Number(row.n);
    // Not leased: who holds it, as the statement began (a holder that died may be taken over).
    outcomes[position] =
      row.found === true
        ? { answer: toCachedAnswer(row) }
        : row.leased === true || typeof row.holder !== "string"
          ? { leased: row.leased === true }
          : { leased: false, holder: row.holder };
  }
  // Another holder's live lease: { leased: false }, wait (a later look reads its answer).
  for (const row of after?.rows ?? []) outcomes[Number(row.n)] = { answer: toCachedAnswer(row) };
  return outcomes;
}
