import { StoreError } from "../errors/store-error.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import { redactSecrets, redactSecretText } from "../secrets/redact-secrets.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { checkOwner } from "./check-owner.ts";
import { describePostgresFailure, PostgresClient, PostgresClientError } from "./postgres-client.ts";
import { type PostgresConnection, resolvePostgresConnection } from "./postgres-connection.ts";
import {
  createPostgresJudgeBatchLog,
  createPostgresJudgeCache,
  type PostgresAccess,
} from "./postgres-judge-cache.ts";
import type { PostgresStatement } from "./postgres-protocol.ts";
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "./postgres-schema.ts";
import { checkRunPart, checkShardJoins } from "./run-shards.ts";
import type {
  FinishRunOptions,
  JudgeBatchLog,
  JudgeCache,
  RunOwner,
  RunStore,
  StartRunPartOptions,
  StoredRun,
  StoredRunPart,
  StoredTestResult,
  TestResultsVersion,
} from "./run-store.ts";
import { toStoredJson } from "./stored-json.ts";
import {
  numberOrNull,
  toCalibrationReport,
  toStoredRun,
  toStoredRunPart,
  toStoredTestResult,
} from "./stored-rows.ts";

/** Options of {@link PostgresRunStore}. */
export interface PostgresRunStoreOptions {
  /**
   * `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&schema=…]` (or
   * `postgresql://`). What it leaves out is read from PGHOST, PGPORT, PGUSER, PGPASSWORD,
   * PGDATABASE, PGSSLMODE, PGSSLROOTCERT, … as libpq does. The password is never stored or
   * printed.
   */
  url: string;
  /** Where the PG* variables are read. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** The schema of verdict's tables (the URL's `?schema=` wins). @default "verdict" */
  schema?: string | undefined;
  /**
   * TLS options for the driver (plain data: `ca`, `cert`, `key`, `servername`, …), laid over
   * what sslmode sets. Without an sslmode they mean `verify-full` (as they do to `pg`);
   * `false` means `disable`.
   */
  ssl?: Record<string, unknown> | boolean | undefined;
  /** Apply pending schema migrations on open. `false`: fail instead (run `verdict store migrate`). @default true */
  migrate?: boolean | undefined;
  /** How long a judge-request lease lives unless renewed (renewed every third of it). @default 30000 */
  leaseMs?: number | undefined;
  /** @default 15000 (or the URL's connect_timeout) */
  connectTimeoutMs?: number | undefined;
  /** @default 60000 */
  statementTimeoutMs?: number | undefined;
}

const RUN_COLUMNS =
  "id, identifier, status, started_at, ended_at, config, summary, owner_pid, owner_hostname, heartbeat_at, shard_count";
const PART_COLUMNS =
  "shard, status, started_at, ended_at, summary, owner_pid, owner_hostname, heartbeat_at";
const UNIQUE_VIOLATION = "23505";

/**
 * A store in a PostgreSQL database that a team shares: runs, test results, shards' parts and
 * the judge cache, with leases so that machines asking the same judge request at once pay for
 * it once. Chosen with `VERDICT_STORE=postgres://…`, `store: "postgres://…"`, or an instance.
 * The schema is created and migrated on first use (concurrent first uses take turns). Calls
 * are synchronous, as `RunStore` is: `pg` runs in a worker thread and this thread waits for
 * each answer (a fraction of a millisecond on a nearby server). Everything written has its
 * secrets masked, as in the SQLite store; the connection's password is never written or
 * printed. Needs the `pg` package (`npm install pg`).
 * @example
 * const store = new PostgresRunStore({ url: "postgres://ci@db.internal/evals?sslmode=verify-full" });
 * await evaluate({ testCases, metrics, store });
 * store.close();
 */
export class PostgresRunStore implements RunStore {
  /** Where the store is, for messages: `postgres://user@host:port/db (schema verdict)`, no password. */
  readonly target: string;
  /** Judge answers in the same database, with {@link JudgeCache.claim}. */
  readonly judgeCache: JudgeCache;
  /** Provider batches of judge requests in flight, in the same database. */
  readonly judgeBatches: JudgeBatchLog;
  private client: PostgresClient | null;
  private readonly connection: PostgresConnection;
  private readonly table: (name: string) => string;
  private readonly leaseMs: number;

  /**
   * Applies pending schema migrations and returns the versions before and after: what
   * `verdict store migrate` does.
   * @example
   * const { before, after } = PostgresRunStore.migrate({ url: process.env.VERDICT_STORE });
   */
  static migrate(options: PostgresRunStoreOptions): {
    target: string;
    before: number[];
    after: number[];
  } {
    const connection = resolveConnection(options);
    const use = <Result>(operation: () => Result) => usePostgres(connection, "migrate", operation);
    const client = use(() => new PostgresClient(connection));
    try {
      const migrate = (check: boolean) =>
        use(() =>
          client.migrate({ schema: connection.schema, migrations: POSTGRES_MIGRATIONS, check }),
        );
      const before = migrate(true);
      checkNotNewer(connection, before);
      return { target: connection.target, before, after: migrate(false) };
    } finally {
      client.close();
    }
  }

  constructor(options: PostgresRunStoreOptions) {
    this.connection = resolveConnection(options);
    this.target = this.connection.target;
    const quoted = `"${this.connection.schema}"`;
    this.table = (name) => `${quoted}.${name}`;
    this.leaseMs = options.leaseMs ?? 30_000;
    if (!(this.leaseMs >= 100)) {
      throw new StoreError(`leaseMs must be at least 100 milliseconds; got ${options.leaseMs}.`);
    }
    this.client = this.use("open", () => new PostgresClient(this.connection));
    try {
      this.openSchema(options.migrate ?? true);
    } catch (error) {
      this.close();
      throw error;
    }
    const access: PostgresAccess = {
      run: (statements, runOptions) => this.run(statements, runOptions),
      use: (action, operation) => this.use(action, operation),
      table: this.table,
      json: (action, value) => this.json(action, value),
    };
    this.judgeCache = createPostgresJudgeCache({ access, leaseMs: this.leaseMs });
    this.judgeBatches = createPostgresJudgeBatchLog(access);
  }

  /** Round trips to the worker so far and the milliseconds spent waiting on them. */
  get timing(): { calls: number; totalMs: number } {
    return { ...(this.client?.timing ?? { calls: 0, totalMs: 0 }) };
  }

  startRun(run: StoredRun): void {
    const action = `start run "${run.id}"`;
    const statements: PostgresStatement[] = [
      {
        text: `INSERT INTO ${this.table("runs")} (${RUN_COLUMNS})
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        values: [
          run.id,
          run.identifier,
          run.status,
          run.startedAt,
          run.endedAt,
          this.json(action, redactSecrets(run.config)),
          run.summary === null ? null : this.json(action, run.summary),
          run.owner?.pid ?? null,
          run.owner?.hostname ?? null,
          run.owner?.heartbeatAt ?? null,
          run.shards?.count ?? null,
        ],
      },
      ...(run.shards?.parts ?? []).map((part) => this.partStatement(action, run.id, part)),
    ];
    this.use(action, () => {
      try {
        this.run(statements, { atomic: true });
      } catch (error) {
        if (codeOf(error) !== UNIQUE_VIOLATION || failedStatement(error) !== 0) throw error;
        throw this.failure(
          action,
          "a run with this id already exists: resume it with reopenRun, or choose another id",
        );
      }
    });
  }

  startRunPart(options: StartRunPartOptions): void {
    const { run, part } = options;
    const { action, problem } = checkRunPart(options);
    if (problem !== null) throw this.failure(action, problem);
    const runs = this.table("runs");
    const joinable = `EXISTS (SELECT 1 FROM ${runs} WHERE id = $1 AND shard_count = $2)`;
    const partRow: StoredRunPart = {
      shard: part.shard.index,
      status: "running",
      startedAt: part.startedAt,
      endedAt: null,
      summary: null,
      owner: part.owner,
    };
    const [, counted] = this.use(action, () =>
      // One transaction: the run is created by exactly one shard (the others find it), and
      // the part and the reopened run are written only when the shard belongs to the run.
      this.run(
        [
          {
            text: `INSERT INTO ${runs} (id, identifier, status, started_at, config, shard_count)
                   VALUES ($1, $2, 'running', $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
            values: [
              run.id,
              run.identifier,
              run.startedAt,
              this.json(action, redactSecrets(run.config)),
              part.shard.count,
            ],
          },
          { text: `SELECT shard_count FROM ${runs} WHERE id = $1 FOR UPDATE`, values: [run.id] },
          this.partStatement(action, run.id, partRow, `WHERE ${joinableFor(runs, 10)}`, [
            part.shard.count,
          ]),
          {
            text: `UPDATE ${runs} SET status = 'running', ended_at = NULL, summary = NULL
                   WHERE ${joinable}`,
            values: [run.id, part.shard.count],
          },
        ],
        { atomic: true },
      ),
    );
    const count = numberOrNull(counted?.rows[0] ?? {}, "shard_count");
    const joins = checkShardJoins({ shard: part.shard, count });
    if (joins !== null) throw this.failure(action, joins);
  }

  reopenRun(runId: string, options: { shard?: number } = {}): void {
    const action = `reopen run "${runId}"`;
    const shard = options.shard ?? null;
    const [parts, runs] = this.use(action, () =>
      this.run(
        [
          {
            text: `UPDATE ${this.table("run_parts")} SET status = 'running', ended_at = NULL, summary = NULL
                   WHERE run_id = $1 AND shard = $2`,
            values: [runId, shard],
          },
          {
            text: `UPDATE ${this.table("runs")} SET status = 'running', ended_at = NULL, summary = NULL
                   WHERE id = $1 AND ($2::integer IS NULL OR EXISTS
                     (SELECT 1 FROM ${this.table("run_parts")} WHERE run_id = $1 AND shard = $2))`,
            values: [runId, shard],
          },
        ],
        { atomic: true },
      ),
    );
    if (shard !== null && parts?.rowCount === 0) this.explainMissingPart(action, runId, shard);
    if (runs?.rowCount === 0) throw this.failure(action, "there is no run with this id");
  }

  heartbeatRun(options: { runId: string; owner: RunOwner; shard?: number }): void {
    const action = `record a heartbeat of run "${options.runId}"`;
    const problem = checkOwner(options.owner);
    if (problem !== null) throw this.failure(action, problem);
    const { pid, hostname, heartbeatAt } = options.owner;
    const shard = options.shard;
    const [changed] = this.use(action, () =>
      this.run([
        shard === undefined
          ? {
              text: `UPDATE ${this.table("runs")} SET owner_pid = $1, owner_hostname = $2, heartbeat_at = $3
                     WHERE id = $4`,
              values: [pid, hostname, heartbeatAt, options.runId],
            }
          : {
              text: `UPDATE ${this.table("run_parts")} SET owner_pid = $1, owner_hostname = $2, heartbeat_at = $3
                     WHERE run_id = $4 AND shard = $5`,
              values: [pid, hostname, heartbeatAt, options.runId, shard],
            },
      ]),
    );
    if (changed?.rowCount !== 0) return;
    if (shard !== undefined) this.explainMissingPart(action, options.runId, shard);
    throw this.failure(action, "there is no run with this id");
  }

  saveTestResult(runId: string, stored: StoredTestResult): void {
    const index = stored.result.index;
    const action = `save test result ${index} of run "${runId}"`;
    if (!Number.isSafeInteger(index) || index < 0) {
      throw this.failure(action, "result.index must be a non-negative integer");
    }
    const result = this.json(action, stored.result);
    const [saved] = this.use(action, () =>
      this.run([
        {
          // The save takes the run's next version under the run row's lock (one statement,
          // one transaction), so versions commit in the order they are given.
          text: `WITH bumped AS (
                   UPDATE ${this.table("runs")} SET results_version = results_version + 1
                   WHERE id = $1 RETURNING results_version
                 )
                 INSERT INTO ${this.table("test_results")} (run_id, idx, fingerprint, success, result, version)
                 SELECT $1, $2, $3, $4, $5, results_version FROM bumped
                 ON CONFLICT (run_id, idx) DO UPDATE SET
                   fingerprint = excluded.fingerprint, success = excluded.success,
                   result = excluded.result, version = excluded.version`,
          values: [runId, index, stored.fingerprint, stored.result.success, result],
        },
      ]),
    );
    if (saved?.rowCount === 0) {
      throw this.failure(action, "there is no run with this id: call startRun first");
    }
  }

  finishRun(options: FinishRunOptions): void {
    const action = `finish run "${options.runId}"`;
    const summary = this.json(action, options.summary);
    const { shard } = options;
    const [changed] = this.use(action, () =>
      this.run([
        shard === undefined
          ? {
              text: `UPDATE ${this.table("runs")} SET status = $1, ended_at = $2, summary = $3 WHERE id = $4`,
              values: [options.status, options.endedAt, summary, options.runId],
            }
          : {
              text: `UPDATE ${this.table("run_parts")} SET status = $1, ended_at = $2, summary = $3
                     WHERE run_id = $4 AND shard = $5`,
              values: [options.status, options.endedAt, summary, options.runId, shard],
            },
      ]),
    );
    if (changed?.rowCount !== 0) return;
    if (shard !== undefined) this.explainMissingPart(action, options.runId, shard);
    throw this.failure(action, "there is no run with this id");
  }

  getRun(idOrIdentifier: string): StoredRun | null {
    const action = `read run "${idOrIdentifier}"`;
    return this.use(action, () => {
      const runs = this.table("runs");
      const [found] = this.run([
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
      const row = found?.rows[0];
      if (row === undefined) return null;
      return toStoredRun(row, (runId) => this.partsOf([runId]).get(runId) ?? []);
    });
  }

  getTestResults(runId: string, options: { changedAfter?: number } = {}): StoredTestResult[] {
    return this.use(`read the test results of run "${runId}"`, () => {
      const after = options.changedAfter;
      const [found] = this.run([
        after === undefined
          ? {
              text: `SELECT fingerprint, result FROM ${this.table("test_results")} WHERE run_id = $1 ORDER BY idx`,
              values: [runId],
            }
          : {
              text: `SELECT fingerprint, result FROM ${this.table("test_results")}
                     WHERE run_id = $1 AND version > $2 ORDER BY idx`,
              values: [runId, after],
            },
      ]);
      return (found?.rows ?? []).map(toStoredTestResult);
    });
  }

  getTestResultsVersion(runId: string): TestResultsVersion {
    return this.use(`read the results version of run "${runId}"`, () => {
      const [found] = this.run([
        {
          text: `SELECT (SELECT count(*) FROM ${this.table("test_results")} WHERE run_id = $1) AS count,
                        (SELECT results_version FROM ${this.table("runs")} WHERE id = $1) AS version`,
          values: [runId],
        },
      ]);
      const row = found?.rows[0] ?? {};
      return { count: numberOrNull(row, "count") ?? 0, version: numberOrNull(row, "version") ?? 0 };
    });
  }

  listRuns(options: { limit?: number } = {}): StoredRun[] {
    const { limit } = options;
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw this.failure("list runs", "limit must be a non-negative integer");
    }
    return this.use("list runs", () => {
      const [found] = this.run([
        {
          text: `SELECT ${RUN_COLUMNS} FROM ${this.table("runs")} ORDER BY started_at DESC, seq DESC LIMIT $1`,
          values: [limit ?? null],
        },
      ]);
      const rows = found?.rows ?? [];
      const sharded = rows.filter((row) => row.shard_count !== null).map((row) => String(row.id));
      const parts = sharded.length === 0 ? new Map() : this.partsOf(sharded);
      return rows.map((row) => toStoredRun(row, (runId) => parts.get(runId) ?? []));
    });
  }

  saveCalibration(report: CalibrationReport): void {
    const action = `save calibration "${report.id}"`;
    const json = this.json(action, report);
    this.use(action, () => {
      let saved: number;
      try {
        const [inserted] = this.run([
          {
            text: `INSERT INTO ${this.table("calibrations")} (id, run_id, created_at, metric, report)
                   SELECT $1, id, $3, $4, $5 FROM ${this.table("runs")} WHERE id = $2`,
            values: [report.id, report.runId, report.createdAt, report.metric.name, json],
          },
        ]);
        saved = inserted?.rowCount ?? 0;
      } catch (error) {
        if (codeOf(error) !== UNIQUE_VIOLATION) throw error;
        throw this.failure(action, "a calibration with this id already exists: choose another id");
      }
      if (saved === 0) {
        throw this.failure(
          action,
          `there is no run "${report.runId}" to link it to: store the run that scored the rows first`,
        );
      }
    });
  }

  getCalibration(id: string): CalibrationReport | null {
    return this.use(`read calibration "${id}"`, () => {
      const [found] = this.run([
        { text: `SELECT report FROM ${this.table("calibrations")} WHERE id = $1`, values: [id] },
      ]);
      const row = found?.rows[0];
      return row === undefined ? null : toCalibrationReport(row);
    });
  }

  listCalibrations(options: { runId?: string; limit?: number } = {}): CalibrationReport[] {
    const { limit } = options;
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw this.failure("list calibrations", "limit must be a non-negative integer");
    }
    return this.use("list calibrations", () => {
      const [found] = this.run([
        {
          text: `SELECT report FROM ${this.table("calibrations")}
                 WHERE $1::text IS NULL OR run_id = $1
                 ORDER BY created_at DESC, seq DESC LIMIT $2`,
          values: [options.runId ?? null, limit ?? null],
        },
      ]);
      return (found?.rows ?? []).map(toCalibrationReport);
    });
  }

  /** Closes the connection. Closing twice is harmless; any other call afterwards throws a StoreError. */
  close(): void {
    const client = this.client;
    this.client = null;
    try {
      client?.close();
    } catch {}
  }

  [Symbol.dispose](): void {
    this.close();
  }

  private openSchema(migrate: boolean): void {
    const client = this.openClient("open");
    const schema = this.connection.schema;
    const check = () =>
      this.use("open", () =>
        client.migrate({ schema, migrations: POSTGRES_MIGRATIONS, check: true }),
      );
    const versions = check();
    checkNotNewer(this.connection, versions);
    if (versions.length === POSTGRES_SCHEMA_VERSION) return;
    if (!migrate) {
      throw this.failure(
        "open",
        `its schema is at version ${versions.length}, this verdict needs ${POSTGRES_SCHEMA_VERSION}: run verdict store migrate`,
      );
    }
    this.use("open", () =>
      client.migrate({ schema, migrations: POSTGRES_MIGRATIONS, check: false }),
    );
  }

  private partStatement(
    action: string,
    runId: string,
    part: StoredRunPart,
    where = "",
    extra: ReadonlyArray<string | number | null> = [],
  ): PostgresStatement {
    return {
      text: `INSERT INTO ${this.table("run_parts")} (run_id, ${PART_COLUMNS})
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 ${where}
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
        part.summary === null ? null : this.json(action, part.summary),
        part.owner?.pid ?? null,
        part.owner?.hostname ?? null,
        part.owner?.heartbeatAt ?? null,
        ...extra,
      ],
    };
  }

  private partsOf(runIds: readonly string[]): Map<string, StoredRunPart[]> {
    const [found] = this.run([
      {
        text: `SELECT run_id, ${PART_COLUMNS} FROM ${this.table("run_parts")}
               WHERE run_id = ANY($1) ORDER BY run_id, shard`,
        values: [runIds],
      },
    ]);
    const parts = new Map<string, StoredRunPart[]>();
    for (const row of found?.rows ?? []) {
      const runId = String(row.run_id);
      parts.set(runId, [...(parts.get(runId) ?? []), toStoredRunPart(row)]);
    }
    return parts;
  }

  /** Throws why a shard's part was not found: no such run, or no such shard in it. */
  private explainMissingPart(action: string, runId: string, shard: number): never {
    const [found] = this.run([
      { text: `SELECT 1 FROM ${this.table("runs")} WHERE id = $1`, values: [runId] },
    ]);
    if (found?.rowCount === 0) throw this.failure(action, "there is no run with this id");
    throw this.failure(action, `the run has no shard ${shard}: start it with startRunPart`);
  }

  private openClient(action: string): PostgresClient {
    if (this.client === null || this.client.closed) {
      throw this.failure(action, "the store is closed: open a new PostgresRunStore");
    }
    return this.client;
  }

  private run(statements: readonly PostgresStatement[], options: { atomic?: boolean } = {}) {
    return this.openClient("use").run(statements, options);
  }

  private json(action: string, value: unknown): string {
    try {
      return toStoredJson(value);
    } catch (error) {
      throw this.failure(action, (error as Error).message, error);
    }
  }

  private use<Result>(action: string, operation: () => Result): Result {
    if (action !== "open" && (this.client === null || this.client.closed)) {
      throw this.failure(action, "the store is closed: open a new PostgresRunStore");
    }
    return usePostgres(this.connection, action, operation);
  }

  private failure(action: string, reason: string, cause?: unknown): StoreError {
    return storeFailure(this.connection, action, reason, cause);
  }
}

function resolveConnection(options: PostgresRunStoreOptions): PostgresConnection {
  const connection = resolvePostgresConnection({
    url: options.url,
    env: options.env ?? process.env,
    schema: options.schema,
    ssl: options.ssl,
    connectTimeoutMs: options.connectTimeoutMs,
    statementTimeoutMs: options.statementTimeoutMs,
  });
  // Masked wherever it might appear from now on (a driver's message, a report).
  registerSecretValues([connection.spec.password]);
  return connection;
}

function storeFailure(
  connection: PostgresConnection,
  action: string,
  reason: string,
  cause?: unknown,
): StoreError {
  const what = action === "open" ? "open the verdict store" : `${action} in the verdict store`;
  return new StoreError(
    redactSecretText(`Could not ${what} ${connection.target}: ${reason}.`),
    cause === undefined ? {} : { cause },
  );
}

/** Runs `operation`, turning what it throws into a `StoreError` that says what to do. */
function usePostgres<Result>(
  connection: PostgresConnection,
  action: string,
  operation: () => Result,
): Result {
  try {
    return operation();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    if (error instanceof PostgresClientError) {
      const reason = describePostgresFailure(error.failure, connection);
      throw storeFailure(connection, action, reason, error);
    }
    const reason =
      error instanceof SyntaxError
        ? `it holds malformed JSON (${error.message})`
        : (error as Error).message;
    throw storeFailure(connection, action, reason, error);
  }
}

function checkNotNewer(connection: PostgresConnection, versions: readonly number[]): void {
  const newest = Math.max(0, ...versions);
  if (newest > POSTGRES_SCHEMA_VERSION) {
    throw storeFailure(
      connection,
      "open",
      `it was written by a newer verdict (schema ${newest}; this version knows up to ${POSTGRES_SCHEMA_VERSION}): upgrade verdict`,
    );
  }
}

function codeOf(error: unknown): string | null {
  return error instanceof PostgresClientError ? error.failure.code : null;
}

function failedStatement(error: unknown): number | null {
  return error instanceof PostgresClientError ? error.failure.statement : null;
}

/** `EXISTS (…)` that run `$1` is split `$n` ways: `n` is the parameter's number. */
function joinableFor(runs: string, parameter: number): string {
  return `EXISTS (SELECT 1 FROM ${runs} WHERE id = $1 AND shard_count = $${parameter})`;
}
