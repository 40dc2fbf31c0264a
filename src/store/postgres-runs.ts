import type { JudgeText } from "../results/judge-text.ts";
import { checkOwner } from "./check-owner.ts";
import { judgeTextHashesToRead, judgeTextsToStore } from "./judge-texts.ts";
import { failureOf, type PostgresAccess, UNIQUE_VIOLATION } from "./postgres-access.ts";
import { PostgresBatcher } from "./postgres-batcher.ts";
import type { PostgresStatement } from "./postgres-pool.ts";
import { isTransientPostgresError } from "./postgres-retry.ts";
import { checkResultsPage } from "./results-page.ts";
import type { StoredRun, StoredRunPart, StoreRuns, TestResultsVersion } from "./run-store.ts";
import { checkRunNames } from "./stored-names.ts";
import {
  numberOrNull,
  runHeaderValues,
  type StoreRow,
  toStoredRun,
  toStoredRunPart,
  toStoredTestResult,
} from "./stored-rows.ts";

const RUN_COLUMNS =
  "id, identifier, status, started_at, ended_at, config, summary, owner_pid, owner_hostname, heartbeat_at, shard_count";
const PART_COLUMNS =
  "shard, status, started_at, ended_at, summary, owner_pid, owner_hostname, heartbeat_at";

/**
 * The statement that writes a shard's part (replacing the part of the same shard), written only
 * `where` a condition holds, whose parameters follow the part's nine as `extra`.
 */
export function partStatement(options: {
  access: PostgresAccess;
  action: string;
  runId: string;
  part: StoredRunPart;
  where?: string;
  extra?: ReadonlyArray<string | number | null>;
}): PostgresStatement {
  const { access, action, runId, part } = options;
  return {
    text: `INSERT INTO ${access.table("run_parts")} (run_id, ${PART_COLUMNS})
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 ${options.where ?? ""}
           ON CONFLICT (run_id, shard) DO UPDATE SET
             status = excluded.status, started_at = excluded.started_at, ended_at = excluded.ended_at,
             summary = excluded.summary, owner_pid = excluded.owner_pid,
             owner_hostname = excluded.owner_hostname, heartbeat_at = excluded.heartbeat_at`,
    values: [
      runId,
      part.shard,
      part.status,
      part.startedAt,
      part.endedAt,
      part.summary === null ? null : access.json(action, part.summary),
      part.owner?.pid ?? null,
      part.owner?.hostname ?? null,
      part.owner?.heartbeatAt ?? null,
      ...(options.extra ?? []),
    ],
  };
}

function checkLimit(access: PostgresAccess, action: string, limit: number | undefined): void {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw access.failure(action, "limit must be a non-negative integer");
  }
}

/** The runs of the PostgreSQL store and their versioned test results. */
export function createPostgresRuns(access: PostgresAccess): StoreRuns {
  const runs = access.table("runs");
  const testResults = access.table("test_results");

  async function partsOf(runIds: readonly string[]): Promise<Map<string, StoredRunPart[]>> {
    const parts = new Map<string, StoredRunPart[]>();
    if (runIds.length === 0) return parts;
    const [found] = await access.run([
      {
        text: `SELECT run_id, ${PART_COLUMNS} FROM ${access.table("run_parts")}
               WHERE run_id = ANY($1) ORDER BY run_id, shard`,
        values: [runIds],
      },
    ]);
    for (const row of found?.rows ?? []) {
      const runId = String(row.run_id);
      parts.set(runId, [...(parts.get(runId) ?? []), toStoredRunPart(row)]);
    }
    return parts;
  }

  /** Runs from their rows, with the parts of the sharded ones. */
  async function toRuns(rows: readonly StoreRow[]): Promise<StoredRun[]> {
    const sharded = rows.filter((row) => row.shard_count !== null).map((row) => String(row.id));
    const parts = await partsOf(sharded);
    return rows.map((row) => toStoredRun(row, (runId) => parts.get(runId) ?? []));
  }

  const saves = new PostgresBatcher<ResultSave, boolean>({
    failsAll: isTransientPostgresError,
    key: (save) => String(save.index),
    group: (save) => save.runId,
    run: (batch) => saveTogether(access, batch),
  });

  return {
    startRun: async (run) => {
      checkRunNames(run);
      const action = `start run "${run.id}"`;
      const header = runHeaderValues(run, (value) => access.json(action, value));
      const statements: PostgresStatement[] = [
        {
          text: `INSERT INTO ${runs} (${RUN_COLUMNS})
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          values: header,
        },
        ...(run.shards?.parts ?? []).map((part) =>
          partStatement({ access, action, runId: run.id, part }),
        ),
      ];
      // Whether the start ran again after a lost connection: its first try may have committed.
      let retried = false;
      await access.use(action, async () => {
        try {
          await access.run(statements, { atomic: true, onRetry: () => (retried = true) });
        } catch (error) {
          const { code, statement } = failureOf(error);
          if (code !== UNIQUE_VIOLATION || statement !== 0) throw error;
          // A start retried after its commit's answer was lost finds its own row: done.
          if (retried && (await isSameStart(access, header))) return;
          throw access.failure(
            action,
            "a run with this id already exists: resume it with reopenRun, or choose another id",
          );
        }
      });
    },

    reopenRun: async (runId) => {
      const action = `reopen run "${runId}"`;
      const [changed] = await access.use(action, () =>
        access.run([
          {
            text: `UPDATE ${runs} SET status = 'running', ended_at = NULL, summary = NULL WHERE id = $1`,
            values: [runId],
          },
        ]),
      );
      if (changed?.rowCount === 0) throw access.failure(action, "there is no run with this id");
    },

    heartbeatRun: async ({ runId, owner }) => {
      const action = `record a heartbeat of run "${runId}"`;
      const problem = checkOwner(owner);
      if (problem !== null) throw access.failure(action, problem);
      const [changed] = await access.use(action, () =>
        access.run([
          {
            text: `UPDATE ${runs} SET owner_pid = $1, owner_hostname = $2, heartbeat_at = $3 WHERE id = $4`,
            values: [owner.pid, owner.hostname, owner.heartbeatAt, runId],
          },
        ]),
      );
      if (changed?.rowCount === 0) throw access.failure(action, "there is no run with this id");
    },

    saveTestResult: async (runId, stored) => {
      const index = stored.result.index;
      const action = `save test result ${index} of run "${runId}"`;
      if (!Number.isSafeInteger(index) || index < 0) {
        throw access.failure(action, "result.index must be a non-negative integer");
      }
      const texts = judgeTextsToStore(stored.judgeTexts);
      if (typeof texts === "string") throw access.failure(action, texts);
      const save: ResultSave = {
        runId,
        index,
        fingerprint: stored.fingerprint,
        success: stored.result.success,
        result: access.json(action, stored.result),
        texts,
      };
      const saved = await access.use(action, () => saves.submit(save));
      if (!saved) throw access.failure(action, "there is no run with this id: call startRun first");
    },

    finishRun: async (options) => {
      const action = `finish run "${options.runId}"`;
      const summary = access.json(action, options.summary);
      const [changed] = await access.use(action, () =>
        access.run([
          {
            text: `UPDATE ${runs} SET status = $1, ended_at = $2, summary = $3 WHERE id = $4`,
            values: [options.status, options.endedAt, summary, options.runId],
          },
        ]),
      );
      if (changed?.rowCount === 0) throw access.failure(action, "there is no run with this id");
    },

    getRun: (idOrIdentifier) =>
      access.use(`read run "${idOrIdentifier}"`, async () => {
        const [found] = await access.run([
          {
            text: `SELECT * FROM (
                     (SELECT ${RUN_COLUMNS}, 0 AS rank FROM ${runs} WHERE id = $1)
                     UNION ALL
                     (SELECT ${RUN_COLUMNS}, 1 AS rank FROM ${runs} WHERE identifier = $1
                      ORDER BY started_at DESC, seq DESC LIMIT 1)
                   ) AS matches ORDER BY rank LIMIT 1`,
            values: [idOrIdentifier],
          },
        ]);
        const [run] = await toRuns(found?.rows ?? []);
        return run ?? null;
      }),

    getTestResults: async (runId, options = {}) => {
      const action = `read the test results of run "${runId}"`;
      const page = checkResultsPage(options);
      if (typeof page === "string") throw access.failure(action, page);
      const values: Array<string | number> = [runId];
      const conditions = ["run_id = $1"];
      if (options.changedAfter !== undefined) {
        values.push(options.changedAfter);
        conditions.push(`version > $${values.length}`);
      }
      let pageClause = "";
      if (page !== null) {
        values.push(page.afterIndex, page.limit);
        conditions.push(`idx > $${values.length - 1}`);
        pageClause = `LIMIT $${values.length}`;
      }
      return access.use(action, async () => {
        const [found] = await access.run([
          {
            text: `SELECT fingerprint, result FROM ${testResults}
                   WHERE ${conditions.join(" AND ")} ORDER BY idx ${pageClause}`,
            values,
          },
        ]);
        return (found?.rows ?? []).map(toStoredTestResult);
      });
    },

    getTestResultsVersion: (runId) =>
      access.use(`read the results version of run "${runId}"`, async () => {
        const [found] = await access.run([
          {
            text: `SELECT (SELECT count(*) FROM ${testResults} WHERE run_id = $1) AS count,
                          (SELECT results_version FROM ${runs} WHERE id = $1) AS version`,
            values: [runId],
          },
        ]);
        const row = found?.rows[0] ?? {};
        const version: TestResultsVersion = {
          count: numberOrNull(row, "count") ?? 0,
          version: numberOrNull(row, "version") ?? 0,
        };
        return version;
      }),

    getJudgeTexts: async (runId, hashes) => {
      const action = `read the judge texts of run "${runId}"`;
      const wanted = judgeTextHashesToRead(hashes);
      if (typeof wanted === "string") throw access.failure(action, wanted);
      if (wanted.length === 0) return [];
      return access.use(action, async () => {
        const [found] = await access.run([
          {
            text: `SELECT hash, text FROM ${access.table("judge_texts")}
                   WHERE run_id = $1 AND hash = ANY($2::text[])`,
            values: [runId, wanted],
          },
        ]);
        return (found?.rows ?? []).map((row) => ({
          hash: String(row.hash),
          text: JSON.parse(String(row.text)) as string,
        }));
      });
    },

    listRuns: async (options = {}) => {
      const { limit } = options;
      checkLimit(access, "list runs", limit);
      return access.use("list runs", async () => {
        const [found] = await access.run([
          {
            text: `SELECT ${RUN_COLUMNS} FROM ${runs} ORDER BY started_at DESC, seq DESC LIMIT $1`,
            values: [limit ?? null],
          },
        ]);
        return toRuns(found?.rows ?? []);
      });
    },
  };
}

/**
 * Whether the run row of `header`'s id holds this very start (the same identifier, start time,
 * configuration and owner heartbeat): what a start finds when it is retried after it
 * committed but the connection broke before the answer came.
 */
async function isSameStart(
  access: PostgresAccess,
  header: ReadonlyArray<string | number | null>,
): Promise<boolean> {
  const [found] = await access.run([
    {
      text: `SELECT 1 FROM ${access.table("runs")} WHERE id = $1
               AND identifier IS NOT DISTINCT FROM $2 AND started_at = $3 AND config = $4
               AND heartbeat_at IS NOT DISTINCT FROM $5 AND owner_pid IS NOT DISTINCT FROM $6
               AND owner_hostname IS NOT DISTINCT FROM $7`,
      values: [header[0], header[1], header[3], header[5], header[9], header[7], header[8]].map(
        (value) => value ?? null,
      ),
    },
  ]);
  return (found?.rowCount ?? 0) > 0;
}

interface ResultSave {
  runId: string;
  index: number;
  fingerprint: string;
  success: boolean | null;
  /** The result's stored JSON. */
  result: string;
  /** Its judge texts, masked. */
  texts: JudgeText[];
}

/**
 * Saves results of one run together (one index once), in one statement, so one transaction:
 * they take the run's next versions, in the order given, under the run row's lock, so that
 * versions commit in order even while many shards write one run (a viewer that has read up to
 * version N never misses a result saved before it). Resolves, for each, whether the run exists.
 */
async function saveTogether(
  access: PostgresAccess,
  saves: readonly ResultSave[],
): Promise<boolean[]> {
  const runId = saves[0]?.runId ?? "";
  const texts = new Map<string, string>();
  for (const save of saves) for (const { hash, text } of save.texts) texts.set(hash, text);
  const [saved] = await access.run(
    [
      {
        text: `WITH saved AS (
               SELECT * FROM unnest($2::bigint[], $3::text[], $4::boolean[], $5::text[])
                 WITH ORDINALITY AS s (idx, fingerprint, success, result, n)
             ),
             bumped AS (
               UPDATE ${access.table("runs")} SET results_version = results_version + $6
               WHERE id = $1 RETURNING results_version
             )
             INSERT INTO ${access.table("test_results")} (run_id, idx, fingerprint, success, result, version)
             SELECT $1, idx, fingerprint, success, result, results_version - $6 + n
             FROM saved, bumped ORDER BY idx
             ON CONFLICT (run_id, idx) DO UPDATE SET
               fingerprint = excluded.fingerprint, success = excluded.success,
               result = excluded.result, version = excluded.version`,
        values: [
          runId,
          saves.map((save) => save.index),
          saves.map((save) => save.fingerprint),
          saves.map((save) => save.success),
          saves.map((save) => save.result),
          saves.length,
        ],
      },
      // With their results, all or nothing: a result never names texts the store lacks.
      ...(texts.size === 0
        ? []
        : [
            {
              text: `INSERT INTO ${access.table("judge_texts")} (run_id, hash, text)
                   SELECT $1, hash, text FROM unnest($2::text[], $3::text[]) AS t (hash, text)
                   WHERE EXISTS (SELECT 1 FROM ${access.table("runs")} WHERE id = $1)
                   ON CONFLICT (run_id, hash) DO NOTHING`,
              values: [
                runId,
                [...texts.keys()],
                [...texts.values()].map((text) => JSON.stringify(text)),
              ],
            },
          ]),
    ],
    { atomic: texts.size > 0 },
  );
  const stored = (saved?.rowCount ?? 0) > 0;
  return saves.map(() => stored);
}
