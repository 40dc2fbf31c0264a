import fs from "node:fs";
import path from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { createVerdictHome } from "../config/create-verdict-home.ts";
import { StoreError } from "../errors/store-error.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import { redactSecrets, redactSecretText } from "../secrets/redact-secrets.ts";
import { checkOwner } from "./check-owner.ts";
import { loadNodeSqlite } from "./load-node-sqlite.ts";
import { checkResultsPage, pageOf } from "./results-page.ts";
import { checkRunPart, checkShardJoins } from "./run-shards.ts";
import type {
  CachedJudgeAnswer,
  FinishRunOptions,
  JudgeBatchLog,
  JudgeCache,
  JudgeLeases,
  RunOwner,
  StartRunPartOptions,
  Store,
  StoreCalibrations,
  StoredRun,
  StoredRunPart,
  StoredTestResult,
  StoreRuns,
  StoreShards,
  TestResultsVersion,
} from "./run-store.ts";
import { toStoredJson } from "./stored-json.ts";
import {
  numberOrNull,
  textOrNull,
  toCalibrationReport,
  toStoredJudgeBatch,
  toStoredRun,
  toStoredRunPart,
  toStoredTestResult,
} from "./stored-rows.ts";

/** Options of {@link SqliteRunStore}. */
export interface SqliteRunStoreOptions {
  /** The database file; created when missing (its folder must exist). */
  path: string;
  /**
   * How long a write waits for another process (a Vitest worker, a CI shard) holding the lock.
   * @default 5000
   */
  busyTimeoutMs?: number | undefined;
  /**
   * How long a lease on a judge request lives unless renewed (see `JudgeCache.claim`): the
   * processes sharing the file (Vitest workers, shards) ask each request once.
   * @default 30000
   */
  leaseMs?: number | undefined;
}

/** Options of {@link SqliteRunStore.open}. */
export interface OpenSqliteRunStoreOptions {
  /**
   * The folder that holds `verdict.db`; created when missing.
   * @default env.VERDICT_HOME, else `<cwd>/.verdict`
   */
  home?: string | undefined;
  /** @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Where a relative `home` or `VERDICT_HOME` is resolved from. @default process.cwd() */
  cwd?: string | undefined;
  /** @default 5000 */
  busyTimeoutMs?: number | undefined;
}

/** The file name of the database inside the verdict home folder. */
export const STORE_FILE_NAME = "verdict.db";

// "VRDT": marks the file as a verdict database, so another program's SQLite file is refused.
const APPLICATION_ID = 0x56524454;

// One step per schema version: MIGRATIONS[n] turns version n into n + 1. Append steps; never
// edit a released one, since existing databases have already run it.
const MIGRATIONS: readonly ((database: DatabaseSync) => void)[] = [
  (database) =>
    database.exec(`
      PRAGMA application_id = ${APPLICATION_ID};
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        identifier TEXT,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        config TEXT NOT NULL,
        summary TEXT
      ) STRICT;
      CREATE INDEX runs_by_identifier ON runs (identifier, started_at);
      CREATE INDEX runs_by_start ON runs (started_at);
      CREATE TABLE test_results (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        fingerprint TEXT NOT NULL,
        success INTEGER,
        result TEXT NOT NULL,
        PRIMARY KEY (run_id, idx)
      ) STRICT;
      CREATE TABLE judge_cache (
        key TEXT PRIMARY KEY,
        text TEXT,
        object TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        cost_usd REAL,
        created_at TEXT NOT NULL
      ) STRICT;
    `),
  // 2: who runs a run and its last heartbeat, so a run whose process died shows as stale.
  (database) =>
    database.exec(`
      ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
      ALTER TABLE runs ADD COLUMN owner_hostname TEXT;
      ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
    `),
  // 3: a version per saved result, so that a viewer re-reads only the results that changed.
  (database) =>
    database.exec(`
      ALTER TABLE test_results ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX test_results_by_version ON test_results (run_id, version);
    `),
  // 4: calibration reports (`verdict calibrate`), each linked to the run that scored its rows.
  (database) =>
    database.exec(`
      CREATE TABLE calibrations (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        metric TEXT NOT NULL,
        report TEXT NOT NULL
      ) STRICT;
      CREATE INDEX calibrations_by_run ON calibrations (run_id, created_at);
      CREATE INDEX calibrations_by_time ON calibrations (created_at);
    `),
  // 5: provider batches of judge requests, so a run killed while it waits resumes polling them.
  (database) =>
    database.exec(`
      CREATE TABLE judge_batches (
        provider TEXT NOT NULL,
        id TEXT NOT NULL,
        judge TEXT NOT NULL,
        request_keys TEXT NOT NULL,
        state TEXT NOT NULL,
        provider_status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (provider, id)
      ) STRICT;
      CREATE INDEX judge_batches_open ON judge_batches (state, created_at);
    `),
  // 6: runs that shards write into together, each shard's part; leases on judge requests, so
  // that processes sharing the file ask each request once.
  (database) =>
    database.exec(`
      ALTER TABLE runs ADD COLUMN shard_count INTEGER;
      CREATE TABLE run_parts (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        shard INTEGER NOT NULL,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        summary TEXT,
        owner_pid INTEGER,
        owner_hostname TEXT,
        heartbeat_at TEXT,
        PRIMARY KEY (run_id, shard)
      ) STRICT;
      CREATE TABLE judge_leases (
        key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `),
];

/** The schema version this build of verdict writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = MIGRATIONS.length;

const RUN_COLUMNS =
  "id, identifier, status, started_at, ended_at, config, summary, owner_pid, owner_hostname, heartbeat_at, shard_count";
const PART_COLUMNS =
  "shard, status, started_at, ended_at, summary, owner_pid, owner_hostname, heartbeat_at";

function prepareStatements(database: DatabaseSync) {
  return {
    insertRun: database.prepare(
      `INSERT INTO runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertRunIfMissing: database.prepare(
      `INSERT INTO runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
    shardCount: database.prepare("SELECT shard_count FROM runs WHERE id = ?"),
    heartbeatRun: database.prepare(
      "UPDATE runs SET owner_pid = ?, owner_hostname = ?, heartbeat_at = ? WHERE id = ?",
    ),
    reopenRun: database.prepare(
      "UPDATE runs SET status = 'running', ended_at = NULL, summary = NULL WHERE id = ?",
    ),
    finishRun: database.prepare(
      "UPDATE runs SET status = ?, ended_at = ?, summary = ? WHERE id = ?",
    ),
    insertPart: database.prepare(
      `INSERT INTO run_parts (run_id, ${PART_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, shard) DO UPDATE SET
         status = excluded.status, started_at = excluded.started_at, ended_at = excluded.ended_at,
         summary = excluded.summary, owner_pid = excluded.owner_pid,
         owner_hostname = excluded.owner_hostname, heartbeat_at = excluded.heartbeat_at`,
    ),
    heartbeatPart: database.prepare(
      `UPDATE run_parts SET owner_pid = ?, owner_hostname = ?, heartbeat_at = ?
       WHERE run_id = ? AND shard = ?`,
    ),
    reopenPart: database.prepare(
      `UPDATE run_parts SET status = 'running', ended_at = NULL, summary = NULL
       WHERE run_id = ? AND shard = ?`,
    ),
    finishPart: database.prepare(
      "UPDATE run_parts SET status = ?, ended_at = ?, summary = ? WHERE run_id = ? AND shard = ?",
    ),
    parts: database.prepare(
      `SELECT ${PART_COLUMNS} FROM run_parts WHERE run_id = ? ORDER BY shard`,
    ),
    runById: database.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`),
    latestRunByIdentifier: database.prepare(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE identifier = ?
       ORDER BY started_at DESC, rowid DESC LIMIT 1`,
    ),
    runsNewestFirst: database.prepare(
      `SELECT ${RUN_COLUMNS} FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?`,
    ),
    // Each save takes the run's next version (one statement: atomic under concurrent writers).
    saveTestResult: database.prepare(
      `INSERT INTO test_results (run_id, idx, fingerprint, success, result, version)
       VALUES (?1, ?2, ?3, ?4, ?5,
         (SELECT coalesce(max(version), 0) + 1 FROM test_results WHERE run_id = ?1))
       ON CONFLICT (run_id, idx) DO UPDATE SET
         fingerprint = excluded.fingerprint, success = excluded.success, result = excluded.result,
         version = excluded.version`,
    ),
    testResults: database.prepare(
      "SELECT fingerprint, result FROM test_results WHERE run_id = ? ORDER BY idx",
    ),
    testResultsPage: database.prepare(
      `SELECT fingerprint, result FROM test_results WHERE run_id = ? AND idx > ?
       ORDER BY idx LIMIT ?`,
    ),
    testResultsChangedAfter: database.prepare(
      "SELECT fingerprint, result FROM test_results WHERE run_id = ? AND version > ? ORDER BY idx",
    ),
    testResultsVersion: database.prepare(
      `SELECT count(*) AS count, coalesce(max(version), 0) AS version
       FROM test_results WHERE run_id = ?`,
    ),
    saveCalibration: database.prepare(
      "INSERT INTO calibrations (id, run_id, created_at, metric, report) VALUES (?, ?, ?, ?, ?)",
    ),
    calibrationById: database.prepare("SELECT report FROM calibrations WHERE id = ?"),
    calibrationsNewestFirst: database.prepare(
      "SELECT report FROM calibrations ORDER BY created_at DESC, rowid DESC LIMIT ?",
    ),
    calibrationsOfRun: database.prepare(
      `SELECT report FROM calibrations WHERE run_id = ?
       ORDER BY created_at DESC, rowid DESC LIMIT ?`,
    ),
    cachedAnswer: database.prepare(
      "SELECT text, object, input_tokens, output_tokens, cost_usd FROM judge_cache WHERE key = ?",
    ),
    cacheEntries: database.prepare(
      `SELECT key, text, object, input_tokens, output_tokens, cost_usd, created_at FROM judge_cache
       WHERE (? IS NULL OR key > ?) ORDER BY key LIMIT ?`,
    ),
    endLease: database.prepare("DELETE FROM judge_leases WHERE key = ?"),
    takeLease: database.prepare(
      `INSERT INTO judge_leases (key, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE judge_leases.expires_at < ?`,
    ),
    renewLease: database.prepare(
      "UPDATE judge_leases SET expires_at = ? WHERE key = ? AND holder = ?",
    ),
    releaseLease: database.prepare("DELETE FROM judge_leases WHERE key = ? AND holder = ?"),
    cacheAnswer: database.prepare(
      `INSERT INTO judge_cache (key, text, object, input_tokens, output_tokens, cost_usd, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET
         text = excluded.text, object = excluded.object, input_tokens = excluded.input_tokens,
         output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd,
         created_at = excluded.created_at`,
    ),
    saveBatch: database.prepare(
      `INSERT INTO judge_batches
         (provider, id, judge, request_keys, state, provider_status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (provider, id) DO UPDATE SET
         judge = excluded.judge, request_keys = excluded.request_keys, state = excluded.state,
         provider_status = excluded.provider_status, created_at = excluded.created_at,
         updated_at = excluded.updated_at`,
    ),
    openBatches: database.prepare(
      `SELECT provider, id, judge, request_keys, state, provider_status, created_at, updated_at
       FROM judge_batches WHERE state = 'open' ORDER BY created_at, rowid`,
    ),
    allBatches: database.prepare(
      `SELECT provider, id, judge, request_keys, state, provider_status, created_at, updated_at
       FROM judge_batches ORDER BY rowid`,
    ),
  } satisfies Record<string, StatementSync>;
}

type Statements = ReturnType<typeof prepareStatements>;

const SQLITE_CONSTRAINT = 19;

function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  // Extended result codes carry the primary code in their low byte.
  return typeof code === "number" ? code & 0xff : undefined;
}

function describeUnopenable(file: string): string {
  const folder = path.dirname(file);
  const folderStat = fs.statSync(folder, { throwIfNoEntry: false });
  if (folderStat === undefined) return `its folder ${folder} does not exist: create it`;
  if (!folderStat.isDirectory()) return `${folder} is a file, not a folder: choose another path`;
  try {
    fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return `its folder ${folder} is read-only: make it writable`;
  }
  return "the file is read-only or not accessible: make it readable and writable";
}

/** What went wrong and what to do, from an error thrown by node:sqlite or JSON. */
function describeFailure(error: unknown, file: string): string {
  const detail = error instanceof Error ? error.message : String(error);
  const elsewhere = "or set VERDICT_HOME to another folder";
  switch (sqliteCode(error)) {
    case 5:
    case 6:
      return `it stayed locked by another process beyond the busy timeout (${detail}): retry, or raise busyTimeoutMs`;
    case 3:
    case 8:
      return `it is read-only (${detail}): make the file and its folder writable, ${elsewhere}`;
    case 11:
    case 26:
      return `it is not a verdict database or is corrupt (${detail}): move it away, ${elsewhere}`;
    case 10:
      return `a disk I/O error occurred (${detail}): check the disk and the file's permissions, ${elsewhere}`;
    case 13:
      return `the disk is full (${detail}): free some space, ${elsewhere}`;
    case 14:
      return `it cannot be opened (${detail}): ${describeUnopenable(file)}, ${elsewhere}`;
    default:
      return error instanceof SyntaxError
        ? `it holds malformed JSON (${detail}): the file is corrupt; move it away, ${elsewhere}`
        : detail;
  }
}

function toCachedAnswer(row: Record<string, unknown>): CachedJudgeAnswer {
  const object = textOrNull(row, "object");
  return {
    text: textOrNull(row, "text"),
    object: object === null ? undefined : JSON.parse(object),
    inputTokens: numberOrNull(row, "input_tokens"),
    outputTokens: numberOrNull(row, "output_tokens"),
    costUsd: numberOrNull(row, "cost_usd"),
  };
}

/**
 * The default store: runs, test results and cached judge answers in one SQLite file, through
 * Node's built-in `node:sqlite` (no native add-on). Several processes may write the same file
 * at once (WAL journal, busy timeout). Every failure is a `StoreError` that names the file and
 * says what to do. Everything written (configurations, results, summaries, cached answers)
 * has its secrets masked first ({@link redactSecrets}, {@link redactSecretText}: configured
 * key values and key patterns), so API keys never reach the file or its WAL.
 * @example
 * const store = SqliteRunStore.open(); // .verdict/verdict.db, or $VERDICT_HOME/verdict.db
 * const run = store.getRun("nightly");
 * const answer = store.judgeCache.get(key);
 * store.close();
 */
export class SqliteRunStore implements Store, StoreRuns, StoreShards, StoreCalibrations {
  /** The database file. */
  readonly path: string;
  /** Judge answers, kept in the same file. */
  readonly judgeCache: JudgeCache;
  /** Judge batches in flight, kept in the same file. */
  readonly judgeBatches: JudgeBatchLog;
  /** Leases on judge cache keys, for the processes that share the file. */
  readonly leases: JudgeLeases;
  private database: DatabaseSync | null;
  private statements: Statements | null;

  /**
   * Opens the store in the default location, creating the folder (with a `.gitignore` that
   * keeps the database out of git):
   * `$VERDICT_HOME/verdict.db` when `VERDICT_HOME` is set, else `<cwd>/.verdict/verdict.db`.
   * @example
   * const store = SqliteRunStore.open({ home: "/var/lib/evals" });
   */
  static open(options: OpenSqliteRunStoreOptions = {}): SqliteRunStore {
    const env = options.env ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    const home = path.resolve(cwd, options.home ?? (env.VERDICT_HOME?.trim() || ".verdict"));
    const file = path.join(home, STORE_FILE_NAME);
    try {
      createVerdictHome({ home });
    } catch (error) {
      throw new StoreError(
        `Could not create the folder of the verdict store ${file}: ${(error as Error).message}. ` +
          "Make its parent writable, or set VERDICT_HOME to another folder.",
        { cause: error },
      );
    }
    return new SqliteRunStore({ path: file, busyTimeoutMs: options.busyTimeoutMs });
  }

  constructor(options: SqliteRunStoreOptions) {
    this.path = options.path === ":memory:" ? options.path : path.resolve(options.path);
    // Loaded here, not imported: an older Node gets one line naming the version needed.
    const { DatabaseSync } = loadNodeSqlite();
    let database: DatabaseSync | undefined;
    try {
      database = new DatabaseSync(this.path, { enableForeignKeyConstraints: true });
      // A pragma rather than the `timeout` option, which Node only has since 22.16.
      database.exec(
        `PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`,
      );
      // WAL lets readers and one writer work at once across processes. With WAL,
      // synchronous = NORMAL cannot corrupt the file: a power cut may lose the last commits,
      // a killed process loses nothing; and it saves an fsync per written result.
      database.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
      this.migrate(database);
      this.statements = prepareStatements(database);
      this.database = database;
    } catch (error) {
      // The open failed: report why, not a failure to close a half-open file.
      try {
        database?.close();
      } catch {}
      throw this.toStoreError("open", error);
    }
    this.leases = this.leaseBackend(options.leaseMs ?? 30_000);
    this.judgeCache = {
      get: async (key) =>
        this.use(`read judge cache entry "${key}"`, (statements) => {
          const row = statements.cachedAnswer.get(key);
          return row === undefined ? undefined : toCachedAnswer(row);
        }),
      set: async (key, answer, options = {}) =>
        this.use(`write judge cache entry "${key}"`, (statements) => {
          statements.cacheAnswer.run(
            key,
            answer.text === null ? null : redactSecretText(answer.text),
            answer.object === undefined
              ? null
              : this.toJson(`write judge cache entry "${key}"`, answer.object),
            answer.inputTokens,
            answer.outputTokens,
            answer.costUsd,
            options.createdAt ?? new Date().toISOString(),
          );
          statements.endLease.run(key);
        }),
      entries: async ({ after, limit }) =>
        this.use("list the judge cache", (statements) =>
          statements.cacheEntries.all(after ?? null, after ?? null, limit).map((row) => ({
            key: String(row.key),
            answer: toCachedAnswer(row),
            createdAt: String(row.created_at),
          })),
        ),
    };
    this.judgeBatches = {
      save: async (batch) => {
        const action = `save judge batch "${batch.id}"`;
        this.use(action, (statements) => {
          statements.saveBatch.run(
            batch.provider,
            batch.id,
            redactSecretText(batch.judge),
            this.toJson(action, batch.requestKeys),
            batch.state,
            batch.providerStatus,
            batch.createdAt,
            batch.updatedAt,
          );
        });
      },
      list: async () =>
        this.use("list judge batches", (statements) =>
          statements.allBatches.all().map(toStoredJudgeBatch),
        ),
      listOpen: async () =>
        this.use("list open judge batches", (statements) =>
          statements.openBatches.all().map(toStoredJudgeBatch),
        ),
    };
  }

  async startRun(run: StoredRun): Promise<void> {
    const action = `start run "${run.id}"`;
    this.use(action, (statements) => {
      this.transaction(() => {
        try {
          statements.insertRun.run(
            run.id,
            run.identifier,
            run.status,
            run.startedAt,
            run.endedAt,
            this.toJson(action, redactSecrets(run.config)),
            run.summary === null ? null : this.toJson(action, run.summary),
            run.owner?.pid ?? null,
            run.owner?.hostname ?? null,
            run.owner?.heartbeatAt ?? null,
            run.shards?.count ?? null,
          );
        } catch (error) {
          if (sqliteCode(error) !== SQLITE_CONSTRAINT) throw error;
          throw this.failure(
            action,
            "a run with this id already exists: resume it with reopenRun, or choose another id",
          );
        }
        for (const part of run.shards?.parts ?? []) this.writePart(action, run.id, part);
      });
    });
  }

  async startRunPart(options: StartRunPartOptions): Promise<void> {
    const { run, part } = options;
    const { action, problem } = checkRunPart(options);
    this.use(action, (statements) => {
      if (problem !== null) throw this.failure(action, problem);
      // One write transaction: shards starting at once on other processes wait their turn,
      // so exactly one creates the run.
      this.transaction(() => {
        statements.insertRunIfMissing.run(
          run.id,
          run.identifier,
          "running",
          run.startedAt,
          null,
          this.toJson(action, redactSecrets(run.config)),
          null,
          part.shard.count,
        );
        const count = numberOrNull(statements.shardCount.get(run.id) ?? {}, "shard_count");
        const joins = checkShardJoins({ shard: part.shard, count });
        if (joins !== null) throw this.failure(action, joins);
        this.writePart(action, run.id, {
          shard: part.shard.index,
          status: "running",
          startedAt: part.startedAt,
          endedAt: null,
          summary: null,
          owner: part.owner,
        });
        statements.reopenRun.run(run.id);
      });
    });
  }

  async reopenRun(runId: string, options: { shard?: number } = {}): Promise<void> {
    const action = `reopen run "${runId}"`;
    this.use(action, (statements) => {
      this.transaction(() => {
        if (statements.reopenRun.run(runId).changes === 0) {
          throw this.failure(action, "there is no run with this id");
        }
        if (options.shard !== undefined) {
          const changed = statements.reopenPart.run(runId, options.shard);
          this.checkPart({ action, changed, runId, shard: options.shard });
        }
      });
    });
  }

  async heartbeatRun(options: { runId: string; owner: RunOwner; shard?: number }): Promise<void> {
    const action = `record a heartbeat of run "${options.runId}"`;
    this.use(action, (statements) => {
      const problem = checkOwner(options.owner);
      if (problem !== null) throw this.failure(action, problem);
      const { pid, hostname, heartbeatAt } = options.owner;
      if (options.shard !== undefined) {
        const changed = statements.heartbeatPart.run(
          pid,
          hostname,
          heartbeatAt,
          options.runId,
          options.shard,
        );
        this.checkPart({ action, changed, runId: options.runId, shard: options.shard });
        return;
      }
      if (statements.heartbeatRun.run(pid, hostname, heartbeatAt, options.runId).changes === 0) {
        throw this.failure(action, "there is no run with this id");
      }
    });
  }

  async saveTestResult(runId: string, stored: StoredTestResult): Promise<void> {
    const index = stored.result.index;
    const action = `save test result ${index} of run "${runId}"`;
    this.use(action, (statements) => {
      if (!Number.isSafeInteger(index) || index < 0) {
        throw this.failure(action, "result.index must be a non-negative integer");
      }
      const success = stored.result.success;
      try {
        statements.saveTestResult.run(
          runId,
          index,
          stored.fingerprint,
          success === null ? null : success ? 1 : 0,
          this.toJson(action, stored.result),
        );
      } catch (error) {
        if (sqliteCode(error) !== SQLITE_CONSTRAINT) throw error;
        throw this.failure(action, "there is no run with this id: call startRun first");
      }
    });
  }

  async finishRun(options: FinishRunOptions & { shard?: number }): Promise<void> {
    const action = `finish run "${options.runId}"`;
    this.use(action, (statements) => {
      const summary = this.toJson(action, options.summary);
      if (options.shard !== undefined) {
        const changed = statements.finishPart.run(
          options.status,
          options.endedAt,
          summary,
          options.runId,
          options.shard,
        );
        this.checkPart({ action, changed, runId: options.runId, shard: options.shard });
        return;
      }
      const { changes } = statements.finishRun.run(
        options.status,
        options.endedAt,
        summary,
        options.runId,
      );
      if (changes === 0) throw this.failure(action, "there is no run with this id");
    });
  }

  async getRun(idOrIdentifier: string): Promise<StoredRun | null> {
    return this.use(`read run "${idOrIdentifier}"`, (statements) => {
      const row =
        statements.runById.get(idOrIdentifier) ??
        statements.latestRunByIdentifier.get(idOrIdentifier);
      return row === undefined ? null : toStoredRun(row, (id) => this.partsOf(statements, id));
    });
  }

  async getTestResults(
    runId: string,
    options: { changedAfter?: number; afterIndex?: number; limit?: number } = {},
  ): Promise<StoredTestResult[]> {
    const action = `read the test results of run "${runId}"`;
    const page = checkResultsPage(options);
    if (typeof page === "string") throw this.failure(action, page);
    return this.use(action, (statements) => {
      const rows =
        options.changedAfter !== undefined
          ? statements.testResultsChangedAfter.all(runId, options.changedAfter)
          : page === null
            ? statements.testResults.all(runId)
            : statements.testResultsPage.all(runId, page.afterIndex, page.limit);
      const results = rows.map(toStoredTestResult);
      return options.changedAfter === undefined || page === null ? results : pageOf(results, page);
    });
  }

  async reopenRunPart(runId: string, shard: number): Promise<void> {
    return this.reopenRun(runId, { shard });
  }

  async heartbeatRunPart(options: {
    runId: string;
    owner: RunOwner;
    shard: number;
  }): Promise<void> {
    return this.heartbeatRun(options);
  }

  async finishRunPart(options: FinishRunOptions & { shard: number }): Promise<void> {
    return this.finishRun(options);
  }

  /** The store's runs: the store itself. */
  get runs(): StoreRuns {
    return this;
  }

  /** The store's sharded runs: the store itself. */
  get shards(): StoreShards {
    return this;
  }

  /** The store's calibration reports: the store itself. */
  get calibrations(): StoreCalibrations {
    return this;
  }

  async getTestResultsVersion(runId: string): Promise<TestResultsVersion> {
    return this.use(`read the results version of run "${runId}"`, (statements) => {
      const row = statements.testResultsVersion.get(runId);
      return {
        count: Number(row?.count ?? 0),
        version: Number(row?.version ?? 0),
      };
    });
  }

  async listRuns(options: { limit?: number } = {}): Promise<StoredRun[]> {
    return this.use("list runs", (statements) => {
      const limit = options.limit ?? -1;
      if (options.limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
        throw this.failure("list runs", "limit must be a non-negative integer");
      }
      return statements.runsNewestFirst
        .all(limit)
        .map((row) => toStoredRun(row, (id) => this.partsOf(statements, id)));
    });
  }

  async saveCalibration(report: CalibrationReport): Promise<void> {
    const action = `save calibration "${report.id}"`;
    this.use(action, (statements) => {
      if (statements.runById.get(report.runId) === undefined) {
        throw this.failure(
          action,
          `there is no run "${report.runId}" to link it to: store the run that scored the rows first`,
        );
      }
      try {
        statements.saveCalibration.run(
          report.id,
          report.runId,
          report.createdAt,
          report.metric.name,
          this.toJson(action, report),
        );
      } catch (error) {
        if (sqliteCode(error) !== SQLITE_CONSTRAINT) throw error;
        throw this.failure(action, "a calibration with this id already exists: choose another id");
      }
    });
  }

  async getCalibration(id: string): Promise<CalibrationReport | null> {
    return this.use(`read calibration "${id}"`, (statements) => {
      const row = statements.calibrationById.get(id);
      return row === undefined ? null : toCalibrationReport(row);
    });
  }

  async listCalibrations(
    options: { runId?: string; limit?: number } = {},
  ): Promise<CalibrationReport[]> {
    return this.use("list calibrations", (statements) => {
      const limit = options.limit ?? -1;
      if (options.limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
        throw this.failure("list calibrations", "limit must be a non-negative integer");
      }
      const rows =
        options.runId === undefined
          ? statements.calibrationsNewestFirst.all(limit)
          : statements.calibrationsOfRun.all(options.runId, limit);
      return rows.map(toCalibrationReport);
    });
  }

  /** Closes the file. Closing twice is harmless; any other call afterwards throws a StoreError. */
  async close(): Promise<void> {
    this.closeNow();
  }

  /** Closes the file at once (for code that cannot wait, e.g. an exit handler). */
  closeNow(): void {
    const database = this.database;
    this.database = null;
    this.statements = null;
    database?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // Leases on the clock of this machine, the only one that opens the file.
  private leaseBackend(leaseMs: number): JudgeLeases {
    return {
      leaseMs,
      tryClaim: async (key, holder, leaseMs) =>
        this.use(`claim judge cache entry "${key}"`, (statements) => {
          const cached = statements.cachedAnswer.get(key);
          if (cached !== undefined) return { answer: toCachedAnswer(cached) };
          // A miss: look again and take the lease under the write lock, so that of the
          // processes missing at once exactly one takes it.
          return this.transaction(() => {
            const row = statements.cachedAnswer.get(key);
            if (row !== undefined) return { answer: toCachedAnswer(row) };
            const now = Date.now();
            const taken = statements.takeLease.run(key, holder, now + leaseMs, now);
            return { leased: Number(taken.changes) > 0 };
          });
        }),
      renew: async (key, holder, leaseMs) =>
        this.use(`renew the lease on judge cache entry "${key}"`, (statements) => {
          statements.renewLease.run(Date.now() + leaseMs, key, holder);
        }),
      release: async (key, holder) =>
        this.use(`release the lease on judge cache entry "${key}"`, (statements) => {
          statements.releaseLease.run(key, holder);
        }),
    };
  }

  private partsOf(statements: Statements, runId: string): StoredRunPart[] {
    return statements.parts.all(runId).map(toStoredRunPart);
  }

  private writePart(action: string, runId: string, part: StoredRunPart): void {
    (this.statements as Statements).insertPart.run(
      runId,
      part.shard,
      part.status,
      part.startedAt,
      part.endedAt,
      part.summary === null ? null : this.toJson(action, part.summary),
      part.owner?.pid ?? null,
      part.owner?.hostname ?? null,
      part.owner?.heartbeatAt ?? null,
    );
  }

  /** Throws why a statement on a shard's part changed nothing: no such run, or no such shard. */
  private checkPart(options: {
    action: string;
    changed: { changes: number | bigint };
    runId: string;
    shard: number;
  }): void {
    const { action, shard } = options;
    if (Number(options.changed.changes) > 0) return;
    if ((this.statements as Statements).shardCount.get(options.runId) === undefined) {
      throw this.failure(action, "there is no run with this id");
    }
    throw this.failure(action, `the run has no shard ${shard}: start it with startRunPart`);
  }

  /** Runs `body` in one write transaction (`BEGIN IMMEDIATE`): all of it, or nothing. */
  private transaction<Result>(body: () => Result): Result {
    const database = this.database as DatabaseSync;
    database.exec("BEGIN IMMEDIATE");
    try {
      const result = body();
      database.exec("COMMIT");
      return result;
    } catch (error) {
      try {
        database.exec("ROLLBACK");
      } catch {}
      throw error;
    }
  }

  // Runs every pending migration step in one write transaction, so that concurrent processes
  // opening a new file migrate it once and a failed step leaves the file as it was.
  private migrate(database: DatabaseSync): void {
    database.exec("BEGIN IMMEDIATE");
    try {
      const version = Number(database.prepare("PRAGMA user_version").get()?.user_version);
      const applicationId = Number(database.prepare("PRAGMA application_id").get()?.application_id);
      const tables = database.prepare("SELECT count(*) AS count FROM sqlite_schema").get();
      const isEmpty = version === 0 && applicationId === 0 && Number(tables?.count) === 0;
      if (!isEmpty && applicationId !== APPLICATION_ID) {
        throw this.failure(
          "open",
          "it is a SQLite database of another program, not a verdict database: move it away, " +
            "or set VERDICT_HOME to another folder",
        );
      }
      if (version > SCHEMA_VERSION) {
        throw this.failure(
          "open",
          `it was written by a newer verdict (schema ${version}; this version knows up to ` +
            `${SCHEMA_VERSION}): upgrade verdict, or set VERDICT_HOME to another folder`,
        );
      }
      for (const step of MIGRATIONS.slice(version)) step(database);
      // Written even when unchanged: this tiny write makes a read-only file fail now, at
      // open, rather than at the first result of a run.
      database.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      database.exec("COMMIT");
    } catch (error) {
      // SQLite may already have rolled back (disk full, I/O error): the first error is the one
      // worth reporting.
      try {
        database.exec("ROLLBACK");
      } catch {}
      throw error;
    }
  }

  private use<Result>(action: string, operation: (statements: Statements) => Result): Result {
    if (this.statements === null) {
      throw this.failure(action, "the store is closed: open a new SqliteRunStore");
    }
    try {
      return operation(this.statements);
    } catch (error) {
      throw this.toStoreError(action, error);
    }
  }

  /** The JSON text that is written, with secrets masked (see {@link toStoredJson}). */
  private toJson(action: string, value: unknown): string {
    try {
      return toStoredJson(value);
    } catch (error) {
      throw this.failure(action, (error as Error).message, error);
    }
  }

  private failure(action: string, reason: string, cause?: unknown): StoreError {
    const what = action === "open" ? "open the verdict store" : `${action} in the verdict store`;
    return new StoreError(
      `Could not ${what} ${this.path}: ${reason}.`,
      cause === undefined ? {} : { cause },
    );
  }

  private toStoreError(action: string, error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    return this.failure(action, describeFailure(error, this.path), error);
  }
}
