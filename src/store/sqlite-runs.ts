import type { JudgeText } from "../results/judge-text.ts";
import { checkOwner } from "./check-owner.ts";
import { judgeTextHashesToRead, judgeTextsToStore } from "./judge-texts.ts";
import { packText, unpackText } from "./packed-text.ts";
import { checkResultsPage, pageOf } from "./results-page.ts";
import type { FinishRunOptions, RunOwner, StoredRunPart, StoreRuns } from "./run-store.ts";
import type { SqliteAccess } from "./sqlite-access.ts";
import { SQLITE_CONSTRAINT, sqliteCode } from "./sqlite-failure.ts";
import type { SqliteStatements } from "./sqlite-schema.ts";
import { checkRunNames } from "./stored-names.ts";
import {
  runHeaderValues,
  toStoredRun,
  toStoredRunPart,
  toStoredTestResult,
} from "./stored-rows.ts";

/**
 * The runs of the SQLite store: reopening, heartbeats and finishing also take a shard, and
 * then act on that shard's part (what the store's `shards` do through them).
 */
export interface SqliteRuns extends StoreRuns {
  reopenRun(runId: string, options?: { shard?: number }): Promise<void>;
  heartbeatRun(options: { runId: string; owner: RunOwner; shard?: number }): Promise<void>;
  finishRun(options: FinishRunOptions & { shard?: number }): Promise<void>;
  getJudgeTexts(runId: string, hashes: readonly string[]): Promise<JudgeText[]>;
}

/** Writes a shard's part of run `runId`, replacing the part of the same shard. */
export function writeRunPart(
  access: SqliteAccess,
  statements: SqliteStatements,
  options: { action: string; runId: string; part: StoredRunPart },
): void {
  const { action, runId, part } = options;
  statements.insertPart.run(
    runId,
    part.shard,
    part.status,
    part.startedAt,
    part.endedAt,
    part.summary === null ? null : access.json(action, part.summary),
    part.owner?.pid ?? null,
    part.owner?.hostname ?? null,
    part.owner?.heartbeatAt ?? null,
  );
}

/** Throws why a statement on a shard's part changed nothing: no such run, or no such shard. */
function checkPart(
  access: SqliteAccess,
  statements: SqliteStatements,
  options: { action: string; changed: { changes: number | bigint }; runId: string; shard: number },
): void {
  const { action, shard } = options;
  if (Number(options.changed.changes) > 0) return;
  if (statements.shardCount.get(options.runId) === undefined) {
    throw access.failure(action, "there is no run with this id");
  }
  throw access.failure(action, `the run has no shard ${shard}: start it with startRunPart`);
}

function partsOf(statements: SqliteStatements, runId: string): StoredRunPart[] {
  return statements.parts.all(runId).map(toStoredRunPart);
}

function checkLimit(access: SqliteAccess, action: string, limit: number | undefined): number {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw access.failure(action, "limit must be a non-negative integer");
  }
  return limit ?? -1;
}

/** The runs of the SQLite store, their shards' parts and their versioned test results. */
export function createSqliteRuns(access: SqliteAccess): SqliteRuns {
  return {
    startRun: async (run) => {
      checkRunNames(run);
      const action = `start run "${run.id}"`;
      access.use(action, (statements) => {
        access.transaction(() => {
          try {
            statements.insertRun.run(
              ...runHeaderValues(run, (value) => access.json(action, value)),
            );
          } catch (error) {
            if (sqliteCode(error) !== SQLITE_CONSTRAINT) throw error;
            throw access.failure(
              action,
              "a run with this id already exists: resume it with reopenRun, or choose another id",
            );
          }
          for (const part of run.shards?.parts ?? []) {
            writeRunPart(access, statements, { action, runId: run.id, part });
          }
        });
      });
    },

    reopenRun: async (runId, options = {}) => {
      const action = `reopen run "${runId}"`;
      access.use(action, (statements) => {
        access.transaction(() => {
          if (statements.reopenRun.run(runId).changes === 0) {
            throw access.failure(action, "there is no run with this id");
          }
          if (options.shard !== undefined) {
            const changed = statements.reopenPart.run(runId, options.shard);
            checkPart(access, statements, { action, changed, runId, shard: options.shard });
          }
        });
      });
    },

    heartbeatRun: async (options) => {
      const action = `record a heartbeat of run "${options.runId}"`;
      access.use(action, (statements) => {
        const problem = checkOwner(options.owner);
        if (problem !== null) throw access.failure(action, problem);
        const { pid, hostname, heartbeatAt } = options.owner;
        if (options.shard !== undefined) {
          const changed = statements.heartbeatPart.run(
            pid,
            hostname,
            heartbeatAt,
            options.runId,
            options.shard,
          );
          checkPart(access, statements, {
            action,
            changed,
            runId: options.runId,
            shard: options.shard,
          });
          return;
        }
        if (statements.heartbeatRun.run(pid, hostname, heartbeatAt, options.runId).changes === 0) {
          throw access.failure(action, "there is no run with this id");
        }
      });
    },

    saveTestResult: async (runId, stored) => {
      const index = stored.result.index;
      const action = `save test result ${index} of run "${runId}"`;
      access.use(action, (statements) => {
        if (!Number.isSafeInteger(index) || index < 0) {
          throw access.failure(action, "result.index must be a non-negative integer");
        }
        const texts = judgeTextsToStore(stored.judgeTexts);
        if (typeof texts === "string") throw access.failure(action, texts);
        const success = stored.result.success;
        const save = () => {
          statements.saveTestResult.run(
            runId,
            index,
            stored.fingerprint,
            success === null ? null : success ? 1 : 0,
            access.json(action, stored.result),
          );
          for (const { hash, text } of texts) {
            statements.saveJudgeText.run(runId, hash, packText(text));
          }
        };
        try {
          // With its texts, all or nothing: a result never names texts the store lacks.
          if (texts.length === 0) save();
          else access.transaction(save);
        } catch (error) {
          if (sqliteCode(error) !== SQLITE_CONSTRAINT) throw error;
          throw access.failure(action, "there is no run with this id: call startRun first");
        }
      });
    },

    getJudgeTexts: async (runId, hashes) => {
      const action = `read the judge texts of run "${runId}"`;
      const wanted = judgeTextHashesToRead(hashes);
      if (typeof wanted === "string") throw access.failure(action, wanted);
      return access.use(action, (statements) =>
        wanted.flatMap((hash) => {
          const packed = statements.judgeText.get(runId, hash)?.packed;
          return packed instanceof Uint8Array ? [{ hash, text: unpackText(packed) }] : [];
        }),
      );
    },

    finishRun: async (options) => {
      const action = `finish run "${options.runId}"`;
      access.use(action, (statements) => {
        const summary = access.json(action, options.summary);
        if (options.shard !== undefined) {
          const changed = statements.finishPart.run(
            options.status,
            options.endedAt,
            summary,
            options.runId,
            options.shard,
          );
          checkPart(access, statements, {
            action,
            changed,
            runId: options.runId,
            shard: options.shard,
          });
          return;
        }
        const { changes } = statements.finishRun.run(
          options.status,
          options.endedAt,
          summary,
          options.runId,
        );
        if (changes === 0) throw access.failure(action, "there is no run with this id");
      });
    },

    getRun: async (idOrIdentifier) =>
      access.use(`read run "${idOrIdentifier}"`, (statements) => {
        const row =
          statements.runById.get(idOrIdentifier) ??
          statements.latestRunByIdentifier.get(idOrIdentifier);
        return row === undefined ? null : toStoredRun(row, (id) => partsOf(statements, id));
      }),

    getTestResults: async (runId, options = {}) => {
      const action = `read the test results of run "${runId}"`;
      const page = checkResultsPage(options);
      if (typeof page === "string") throw access.failure(action, page);
      return access.use(action, (statements) => {
        const rows =
          options.changedAfter !== undefined
            ? statements.testResultsChangedAfter.all(runId, options.changedAfter)
            : page === null
              ? statements.testResults.all(runId)
              : statements.testResultsPage.all(runId, page.afterIndex, page.limit);
        const results = rows.map(toStoredTestResult);
        return options.changedAfter === undefined || page === null
          ? results
          : pageOf(results, page);
      });
    },

    getTestResultsVersion: async (runId) =>
      access.use(`read the results version of run "${runId}"`, (statements) => {
        const row = statements.testResultsVersion.get(runId);
        return {
          count: Number(row?.count ?? 0),
          version: Number(row?.version ?? 0),
        };
      }),

    listRuns: async (options = {}) =>
      access.use("list runs", (statements) => {
        const limit = checkLimit(access, "list runs", options.limit);
        return statements.runsNewestFirst
          .all(limit)
          .map((row) => toStoredRun(row, (id) => partsOf(statements, id)));
      }),
  };
}
