import type { DatabaseSync, StatementSync } from "node:sqlite";
import { sqliteStoreFailure } from "./sqlite-failure.ts";

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
  // 7: the token log-probabilities of judge answers that asked for them (JSON, or NULL).
  (database) => database.exec("ALTER TABLE judge_cache ADD COLUMN logprobs TEXT;"),
  // 8: the judge's prompts and raw answers of a run, each text once per run under its SHA-256,
  // Brotli-compressed (`packed`: see sqlite-judge-texts.ts). A rowid table: texts of kilobytes
  // pack into its pages (WITHOUT ROWID, which keeps whole rows in its key's B-tree, stored
  // them at a third of the density).
  (database) =>
    database.exec(`
      CREATE TABLE judge_texts (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        hash TEXT NOT NULL,
        packed BLOB NOT NULL,
        UNIQUE (run_id, hash)
      ) STRICT;
    `),
  // 9 (budgets): nothing to change in the tables — a run may now end "budget-exhausted", its
  // summary holding the budget and what was spent of it. A version that cannot read such a
  // run must refuse the file as newer rather than fail on that run: hence the version.
  () => {},
];

/** The schema version this build of verdict writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = MIGRATIONS.length;

const RUN_COLUMNS =
  "id, identifier, status, started_at, ended_at, config, summary, owner_pid, owner_hostname, heartbeat_at, shard_count";
const PART_COLUMNS =
  "shard, status, started_at, ended_at, summary, owner_pid, owner_hostname, heartbeat_at";

/**
 * The statements of the SQLite store, prepared once when it opens: runs and shards' parts,
 * versioned test results, calibrations, the judge cache, leases and batches.
 */
export function prepareSqliteStatements(database: DatabaseSync) {
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
    saveJudgeText: database.prepare(
      "INSERT INTO judge_texts (run_id, hash, packed) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    ),
    judgeText: database.prepare("SELECT packed FROM judge_texts WHERE run_id = ? AND hash = ?"),
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
      `SELECT text, object, input_tokens, output_tokens, cost_usd, logprobs FROM judge_cache
       WHERE key = ?`,
    ),
    cacheEntries: database.prepare(
      `SELECT key, text, object, input_tokens, output_tokens, cost_usd, logprobs, created_at
       FROM judge_cache WHERE (? IS NULL OR key > ?) ORDER BY key LIMIT ?`,
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
    leaseHolder: database.prepare("SELECT holder FROM judge_leases WHERE key = ?"),
    takeOverLease: database.prepare(
      "UPDATE judge_leases SET holder = ?, expires_at = ? WHERE key = ? AND holder = ?",
    ),
    releaseLease: database.prepare("DELETE FROM judge_leases WHERE key = ? AND holder = ?"),
    cacheAnswer: database.prepare(
      `INSERT INTO judge_cache
         (key, text, object, input_tokens, output_tokens, cost_usd, created_at, logprobs)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET
         text = excluded.text, object = excluded.object, input_tokens = excluded.input_tokens,
         output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd,
         created_at = excluded.created_at, logprobs = excluded.logprobs`,
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

/** The prepared statements of an open SQLite store, by name. */
export type SqliteStatements = ReturnType<typeof prepareSqliteStatements>;

/**
 * Runs every pending migration step in one write transaction, so that concurrent processes
 * opening a new file migrate it once and a failed step leaves the file as it was. Refuses
 * another program's database and one written by a newer verdict (`file` names it).
 */
export function migrateSqliteSchema(database: DatabaseSync, file: string): void {
  database.exec("BEGIN IMMEDIATE");
  try {
    const version = Number(database.prepare("PRAGMA user_version").get()?.user_version);
    const applicationId = Number(database.prepare("PRAGMA application_id").get()?.application_id);
    const tables = database.prepare("SELECT count(*) AS count FROM sqlite_schema").get();
    const isEmpty = version === 0 && applicationId === 0 && Number(tables?.count) === 0;
    if (!isEmpty && applicationId !== APPLICATION_ID) {
      throw sqliteStoreFailure(
        file,
        "open",
        "it is a SQLite database of another program, not a verdict database: move it away, " +
          "or set VERDICT_HOME to another folder",
      );
    }
    if (version > SCHEMA_VERSION) {
      throw sqliteStoreFailure(
        file,
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
