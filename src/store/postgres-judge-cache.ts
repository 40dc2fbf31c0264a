import { redactSecretText } from "../secrets/redact-secrets.ts";
import type { PostgresAccess } from "./postgres-access.ts";
import { PostgresBatcher } from "./postgres-batcher.ts";
import {
  encodeKeyNotice,
  type StoredAnswerColumns,
  toCachedAnswer,
} from "./postgres-key-notice.ts";
import type { PostgresStatement } from "./postgres-pool.ts";
import { isTransientPostgresError } from "./postgres-retry.ts";
import type { JudgeBatchLog, JudgeCache } from "./run-store.ts";
import { toStoredLogprobs } from "./stored-logprobs.ts";
import { toStoredJudgeBatch } from "./stored-rows.ts";

/**
 * The PostgreSQL store's judge cache: answers in `judge_cache` (the text as a JSON string, so
 * that any text round-trips). Storing an answer ends the lease on its key (see
 * `createPostgresJudgeLeases`) and, in the same statement, notifies `channel` with the key (and
 * the answer when it is small), so that processes waiting for it wake at once.
 */
export function createPostgresJudgeCache(options: {
  access: PostgresAccess;
  channel: string;
  /** Told each key whose answer was written (and whose lease thereby ended). */
  onAnswered?: (key: string) => void;
}): JudgeCache {
  const { access, channel, onAnswered } = options;
  const writes = new PostgresBatcher<CacheWrite, undefined>({
    failsAll: isTransientPostgresError,
    key: (write) => write.key,
    run: (batch) => writeTogether({ access, channel, writes: batch }),
  });
  return {
    get: (key) =>
      access.use(`read judge cache entry "${key}"`, async () => {
        const [found] = await access.run([cachedAnswerStatement(access, key)]);
        const row = found?.rows[0];
        return row === undefined ? undefined : toCachedAnswer(row);
      }),

    set: async (key, answer, setOptions = {}) => {
      const action = `write judge cache entry "${key}"`;
      const stored: StoredAnswerColumns = {
        text: answer.text === null ? null : JSON.stringify(redactSecretText(answer.text)),
        object: answer.object === undefined ? null : access.json(action, answer.object),
        input_tokens: answer.inputTokens,
        output_tokens: answer.outputTokens,
        cost_usd: answer.costUsd,
        logprobs:
          answer.logprobs === undefined
            ? null
            : access.json(action, toStoredLogprobs(answer.logprobs)),
      };
      const createdAt = setOptions.createdAt ?? new Date().toISOString();
      await access.use(action, () => writes.submit({ key, stored, createdAt }));
      onAnswered?.(key);
    },

    entries: ({ after, limit }) =>
      access.use("list the judge cache", async () => {
        const [found] = await access.run([
          {
            text: `SELECT key, text, object, input_tokens, output_tokens, cost_usd, logprobs,
                          created_at
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
    text: `SELECT text, object, input_tokens, output_tokens, cost_usd, logprobs FROM ${access.table("judge_cache")} WHERE key = $1`,
    values: [key],
  };
}

interface CacheWrite {
  key: string;
  stored: StoredAnswerColumns;
  createdAt: string;
}

/**
 * Writes answers together (one key once), in one statement, so one transaction: the answers
 * are stored, the leases on their keys ended and their waiters notified together (each notice,
 * which carries a small answer, goes out when it commits; waiting processes then find the
 * answer, not the lease). Leases and answers are locked in key order, as claims take them, so
 * that no two statements wait on each other in a circle. A SELECT in WITH runs only when read,
 * hence `FROM woken`.
 */
async function writeTogether(options: {
  access: PostgresAccess;
  channel: string;
  writes: readonly CacheWrite[];
}): Promise<undefined[]> {
  const { access, channel, writes } = options;
  const leases = access.table("judge_leases");
  const column = <Value>(pick: (write: CacheWrite) => Value) => writes.map(pick);
  await access.run([
    {
      text: `WITH written AS (
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[],
                                    $6::double precision[], $7::text[], $8::text[], $9::text[])
                 AS w (key, text, object, input_tokens, output_tokens, cost_usd, created_at, notice,
                       logprobs)
             ),
             locked AS MATERIALIZED (
               SELECT l.key FROM ${leases} AS l JOIN written ON written.key = l.key
               ORDER BY l.key FOR UPDATE OF l
             ),
             ended AS (DELETE FROM ${leases} WHERE key IN (SELECT key FROM locked)),
             woken AS (SELECT count(pg_notify($10, notice)) AS notices FROM written)
             INSERT INTO ${access.table("judge_cache")}
               (key, text, object, input_tokens, output_tokens, cost_usd, created_at, logprobs)
             SELECT key, text, object, input_tokens, output_tokens, cost_usd, created_at, logprobs
             FROM written, woken ORDER BY key
             ON CONFLICT (key) DO UPDATE SET
               text = excluded.text, object = excluded.object,
               input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
               cost_usd = excluded.cost_usd, created_at = excluded.created_at,
               logprobs = excluded.logprobs`,
      values: [
        column((write) => write.key),
        column((write) => write.stored.text),
        column((write) => write.stored.object),
        column((write) => write.stored.input_tokens),
        column((write) => write.stored.output_tokens),
        column((write) => write.stored.cost_usd),
        column((write) => write.createdAt),
        column((write) => encodeKeyNotice(write.key, write.stored)),
        column((write) => write.stored.logprobs),
        channel,
      ],
    },
  ]);
  return writes.map(() => undefined);
}
