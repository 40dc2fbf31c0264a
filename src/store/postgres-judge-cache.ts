import { redactSecretText } from "../secrets/redact-secrets.ts";
import type { PostgresAccess } from "./postgres-access.ts";
import type { PostgresStatement } from "./postgres-pool.ts";
import type { CachedJudgeAnswer, JudgeBatchLog, JudgeCache } from "./run-store.ts";
import { numberOrNull, type StoreRow, textOrNull, toStoredJudgeBatch } from "./stored-rows.ts";

/**
 * The PostgreSQL store's judge cache: answers in `judge_cache` (the text as a JSON string, so
 * that any text round-trips). Storing an answer ends the lease on its key (see
 * `createPostgresJudgeLeases`) and, in the same statement, notifies `channel` with the key, so
 * that processes waiting for it wake at once.
 */
export function createPostgresJudgeCache(options: {
  access: PostgresAccess;
  channel: string;
  /** Told each key whose answer was written (and whose lease thereby ended). */
  onAnswered?: (key: string) => void;
}): JudgeCache {
  const { access, channel, onAnswered } = options;
  return {
    get: (key) =>
      access.use(`read judge cache entry "${key}"`, async () => {
        const [found] = await access.run([cachedAnswerStatement(access, key)]);
        const row = found?.rows[0];
        return row === undefined ? undefined : toCachedAnswer(row);
      }),

    set: async (key, answer, setOptions = {}) => {
      const action = `write judge cache entry "${key}"`;
      const values = [
        key,
        answer.text === null ? null : JSON.stringify(redactSecretText(answer.text)),
        answer.object === undefined ? null : access.json(action, answer.object),
        answer.inputTokens,
        answer.outputTokens,
        answer.costUsd,
        setOptions.createdAt ?? new Date().toISOString(),
        channel,
      ];
      await access.use(action, () =>
        access.run([
          {
            // One statement, so one transaction: the answer is stored, the lease on it ended and
            // its waiters notified together (the notice goes out when it commits, and waiting
            // processes then find the answer, not the lease). A SELECT in WITH runs only when
            // read, hence `FROM woken`.
            text: `WITH ended AS (DELETE FROM ${access.table("judge_leases")} WHERE key = $1),
                        woken AS (SELECT pg_notify($8, $1))
                   INSERT INTO ${access.table("judge_cache")}
                     (key, text, object, input_tokens, output_tokens, cost_usd, created_at)
                   SELECT $1, $2, $3, $4, $5, $6, $7 FROM woken
                   ON CONFLICT (key) DO UPDATE SET
                     text = excluded.text, object = excluded.object,
                     input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
                     cost_usd = excluded.cost_usd, created_at = excluded.created_at`,
            values,
          },
        ]),
      );
      onAnswered?.(key);
    },

    entries: ({ after, limit }) =>
      access.use("list the judge cache", async () => {
        const [found] = await access.run([
          {
            text: `SELECT key, text, object, input_tokens, output_tokens, cost_usd, created_at
                   FROM ${access.table("judge_cache")}
                   WHERE $1::text IS NULL OR key > $1 ORDER BY key LIMIT $2`,
            values: [after ?? null, limit],
          },
        ]);
        return (found?.rows ?? []).map((row) => ({
          key: String(row.key),
          answer: toCachedAnswer(row),
          createdAt: String(row.created_at),
        }));
      }),
  };
}

/** The PostgreSQL store's log of provider batches (`judge_batches`), in saving order. */
export function createPostgresJudgeBatchLog(access: PostgresAccess): JudgeBatchLog {
  const batches = access.table("judge_batches");
  const batchColumns =
    "provider, id, judge, request_keys, state, provider_status, created_at, updated_at";
  return {
    save: async (batch) => {
      const action = `save judge batch "${batch.id}"`;
      const requestKeys = access.json(action, batch.requestKeys);
      await access.use(action, () =>
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
      access.use("list judge batches", async () => {
        const [found] = await access.run([
          { text: `SELECT ${batchColumns} FROM ${batches} ORDER BY seq` },
        ]);
        return (found?.rows ?? []).map(toStoredJudgeBatch);
      }),
    listOpen: () =>
      access.use("list open judge batches", async () => {
        const [found] = await access.run([
          {
            text: `SELECT ${batchColumns} FROM ${batches} WHERE state = 'open' ORDER BY created_at, seq`,
          },
        ]);
        return (found?.rows ?? []).map(toStoredJudgeBatch);
      }),
  };
}

/** The statement that reads the answer cached under `key`. */
function cachedAnswerStatement(access: PostgresAccess, key: string): PostgresStatement {
  return {
    text: `SELECT text, object, input_tokens, output_tokens, cost_usd FROM ${access.table("judge_cache")} WHERE key = $1`,
    values: [key],
  };
}

/** A cached answer from its `judge_cache` row. */
export function toCachedAnswer(row: StoreRow): CachedJudgeAnswer {
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
