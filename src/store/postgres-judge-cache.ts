import { redactSecretText } from "../secrets/redact-secrets.ts";
import { claimWithLease, type LeaseBackend, leaseHolder } from "./judge-lease.ts";
import type { PostgresResult, PostgresStatement } from "./postgres-protocol.ts";
import type { CachedJudgeAnswer, JudgeBatchLog, JudgeCache } from "./run-store.ts";
import { numberOrNull, type StoreRow, textOrNull, toStoredJudgeBatch } from "./stored-rows.ts";

/** What the judge cache and the batch log of the PostgreSQL store use of it. */
export interface PostgresAccess {
  /** Runs statements in one round trip (see `PostgresClient.run`). */
  run(statements: readonly PostgresStatement[], options?: { atomic?: boolean }): PostgresResult[];
  /** Runs an operation, turning its failure into a `StoreError` that names `action`. */
  use<Result>(action: string, operation: () => Result): Result;
  /** A table's name, qualified with the store's schema. */
  table(name: string): string;
  /** The JSON text stored for a value, secrets masked. */
  json(action: string, value: unknown): string;
}

/**
 * The PostgreSQL store's judge cache: answers in `judge_cache` (the text as a JSON string, so
 * that any text round-trips), with leases in `judge_leases` judged by the server's clock, so
 * that machines asking the same request at once pay for it once (see `claimWithLease`).
 */
export function createPostgresJudgeCache(options: {
  access: PostgresAccess;
  leaseMs: number;
}): JudgeCache {
  const { access, leaseMs } = options;
  const backend = leaseBackend(access);
  return {
    get: (key) =>
      access.use(`read judge cache entry "${key}"`, () => {
        const [found] = access.run([cachedAnswer(access, key)]);
        const row = found?.rows[0];
        return row === undefined ? undefined : toAnswer(row);
      }),
    set: (key, answer, setOptions = {}) => {
      const action = `write judge cache entry "${key}"`;
      const values = answerValues(access, action, answer);
      access.use(action, () =>
        access.run([
          {
            // One statement, so one transaction: the answer is stored and the lease on it
            // ended together (waiting processes then take the answer, not the lease).
            text: `WITH ended AS (DELETE FROM ${access.table("judge_leases")} WHERE key = $1)
                   INSERT INTO ${access.table("judge_cache")}
                     (key, text, object, input_tokens, output_tokens, cost_usd, created_at)
                   VALUES ($1, $2, $3, $4, $5, $6, $7)
                   ON CONFLICT (key) DO UPDATE SET
                     text = excluded.text, object = excluded.object,
                     input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
                     cost_usd = excluded.cost_usd, created_at = excluded.created_at`,
            values: [key, ...values, setOptions.createdAt ?? new Date().toISOString()],
          },
        ]),
      );
    },
    entries: ({ after, limit }) =>
      access.use("list the judge cache", () => {
        const [found] = access.run([
          {
            text: `SELECT key, text, object, input_tokens, output_tokens, cost_usd, created_at
                   FROM ${access.table("judge_cache")}
                   WHERE $1::text IS NULL OR key > $1 ORDER BY key LIMIT $2`,
            values: [after ?? null, limit],
          },
        ]);
        return (found?.rows ?? []).map((row) => ({
          key: String(row.key),
          answer: toAnswer(row),
          createdAt: String(row.created_at),
        }));
      }),
    claim: (key, claimOptions = {}) =>
      claimWithLease({
        backend,
        key,
        holder: leaseHolder(),
        leaseMs: leaseMs,
        signal: claimOptions.signal,
      }),
  };
}

/** The PostgreSQL store's log of provider batches (`judge_batches`), in saving order. */
export function createPostgresJudgeBatchLog(access: PostgresAccess): JudgeBatchLog {
  const batches = access.table("judge_batches");
  const batchColumns =
    "provider, id, judge, request_keys, state, provider_status, created_at, updated_at";
  return {
    save: (batch) => {
      const action = `save judge batch "${batch.id}"`;
      const requestKeys = access.json(action, batch.requestKeys);
      access.use(action, () =>
        access.run([
          {
            text: `INSERT INTO ${batches} (${batchColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                   ON CONFLICT (provider, id) DO UPDATE SET
                     judge = excluded.judge, request_keys = excluded.request_keys,
                     state = excluded.state, provider_status = excluded.provider_status,
                     created_at = excluded.created_at, updated_at = excluded.updated_at`,
            values: [
              batch.provider,
              batch.id,
              redactSecretText(batch.judge),
              requestKeys,
              batch.state,
              batch.providerStatus,
              batch.createdAt,
              batch.updatedAt,
            ],
          },
        ]),
      );
    },
    list: () =>
      access.use("list judge batches", () => {
        const [found] = access.run([
          { text: `SELECT ${batchColumns} FROM ${batches} ORDER BY seq` },
        ]);
        return (found?.rows ?? []).map(toStoredJudgeBatch);
      }),
    listOpen: () =>
      access.use("list open judge batches", () => {
        const [found] = access.run([
          {
            text: `SELECT ${batchColumns} FROM ${batches} WHERE state = 'open' ORDER BY created_at, seq`,
          },
        ]);
        return (found?.rows ?? []).map(toStoredJudgeBatch);
      }),
  };
}

function leaseBackend(access: PostgresAccess): LeaseBackend {
  const leases = access.table("judge_leases");
  const cache = access.table("judge_cache");
  return {
    tryClaim: (key, holder, leaseMs) =>
      access.use(`claim judge cache entry "${key}"`, () => {
        // One round trip, each statement seeing what committed before it: the answer if
        // cached; else the lease when free or expired; once taken, the answer again (its
        // holder may have just written it), giving the lease back if so.
        const [before, leased, after] = access.run([
          // A hit (the common case once a suite has run) ends the round trip here.
          { ...cachedAnswer(access, key), stopIf: "rows" },
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
          cachedAnswer(access, key),
          {
            text: `DELETE FROM ${leases} WHERE key = $1 AND holder = $2
                   AND EXISTS (SELECT 1 FROM ${cache} WHERE key = $1)`,
            values: [key, holder],
          },
        ]);
        const row = before?.rows[0] ?? after?.rows[0];
        if (row !== undefined) return { answer: toAnswer(row) };
        return { leased: (leased?.rowCount ?? 0) > 0 };
      }),
    renew: (key, holder, leaseMs) =>
      access.use(`renew the lease on judge cache entry "${key}"`, () => {
        access.run([
          {
            text: `UPDATE ${leases} SET expires_at = clock_timestamp() + $3 * interval '1 millisecond'
                   WHERE key = $1 AND holder = $2`,
            values: [key, holder, leaseMs],
          },
        ]);
      }),
    release: (key, holder) =>
      access.use(`release the lease on judge cache entry "${key}"`, () => {
        access.run([
          { text: `DELETE FROM ${leases} WHERE key = $1 AND holder = $2`, values: [key, holder] },
        ]);
      }),
  };
}

function cachedAnswer(access: PostgresAccess, key: string): PostgresStatement {
  return {
    text: `SELECT text, object, input_tokens, output_tokens, cost_usd FROM ${access.table("judge_cache")} WHERE key = $1`,
    values: [key],
  };
}

function toAnswer(row: StoreRow): CachedJudgeAnswer {
  const text = textOrNull(row, "text");
  const object = textOrNull(row, "object");
  return {
    text: text === null ? null : (JSON.parse(text) as string),
    object: object === null ? undefined : JSON.parse(object),
    inputTokens: numberOrNull(row, "input_tokens"),
    outputTokens: numberOrNull(row, "output_tokens"),
    costUsd: numberOrNull(row, "cost_usd"),
  };
}

function answerValues(access: PostgresAccess, action: string, answer: CachedJudgeAnswer) {
  return [
    answer.text === null ? null : JSON.stringify(redactSecretText(answer.text)),
    answer.object === undefined ? null : access.json(action, answer.object),
    answer.inputTokens,
    answer.outputTokens,
    answer.costUsd,
  ] as const;
}
