import { redactSecretText } from "../secrets/redact-secrets.ts";
import type { CachedJudgeAnswer, JudgeBatchLog, JudgeCache } from "./run-store.ts";
import type { SqliteAccess } from "./sqlite-access.ts";
import { toStoredLogprobs } from "./stored-logprobs.ts";
import {
  numberOrNull,
  type StoreRow,
  storedLogprobs,
  textOrNull,
  toStoredJudgeBatch,
} from "./stored-rows.ts";

/** A row of `judge_cache` as a cached answer. */
export function toCachedAnswer(row: StoreRow): CachedJudgeAnswer {
  const object = textOrNull(row, "object");
  return {
    text: textOrNull(row, "text"),
    object: object === null ? undefined : JSON.parse(object),
    inputTokens: numberOrNull(row, "input_tokens"),
    outputTokens: numberOrNull(row, "output_tokens"),
    costUsd: numberOrNull(row, "cost_usd"),
    ...storedLogprobs(row),
  };
}

/**
 * The SQLite store's judge cache: answers in `judge_cache`, their text, object and token
 * log-probabilities with secrets masked. Storing an answer ends the lease on its key (see `createSqliteJudgeLeases`).
 */
export function createSqliteJudgeCache(access: SqliteAccess): JudgeCache {
  return {
    get: async (key) =>
      access.use(`read judge cache entry "${key}"`, (statements) => {
        const row = statements.cachedAnswer.get(key);
        return row === undefined ? undefined : toCachedAnswer(row);
      }),
    set: async (key, answer, options = {}) =>
      access.use(`write judge cache entry "${key}"`, (statements) => {
        statements.cacheAnswer.run(
          key,
          answer.text === null ? null : redactSecretText(answer.text),
          answer.object === undefined
            ? null
            : access.json(`write judge cache entry "${key}"`, answer.object),
          answer.inputTokens,
          answer.outputTokens,
          answer.costUsd,
          options.createdAt ?? new Date().toISOString(),
          answer.logprobs === undefined
            ? null
            : access.json(`write judge cache entry "${key}"`, toStoredLogprobs(answer.logprobs)),
        );
        statements.endLease.run(key);
      }),
    entries: async ({ after, limit }) =>
      access.use("list the judge cache", (statements) =>
        statements.cacheEntries.all(after ?? null, after ?? null, limit).map((row) => ({
          key: String(row.key),
          answer: toCachedAnswer(row),
          createdAt: String(row.created_at),
        })),
      ),
  };
}

/** The SQLite store's log of provider batches of judge requests in flight (`judge_batches`). */
export function createSqliteJudgeBatchLog(access: SqliteAccess): JudgeBatchLog {
  return {
    save: async (batch) => {
      const action = `save judge batch "${batch.id}"`;
      access.use(action, (statements) => {
        statements.saveBatch.run(
          batch.provider,
          batch.id,
          redactSecretText(batch.judge),
          access.json(action, batch.requestKeys),
          batch.state,
          batch.providerStatus,
          batch.createdAt,
          batch.updatedAt,
        );
      });
    },
    list: async () =>
      access.use("list judge batches", (statements) =>
        statements.allBatches.all().map(toStoredJudgeBatch),
      ),
    listOpen: async () =>
      access.use("list open judge batches", (statements) =>
        statements.openBatches.all().map(toStoredJudgeBatch),
      ),
  };
}
