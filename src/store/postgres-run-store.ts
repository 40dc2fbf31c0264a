import { StoreError } from "../errors/store-error.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { createPostgresAccess, postgresStoreFailure, usePostgres } from "./postgres-access.ts";
import { createPostgresCalibrations } from "./postgres-calibrations.ts";
import { type PostgresConnection, resolvePostgresConnection } from "./postgres-connection.ts";
import { createPostgresJudgeBatchLog, createPostgresJudgeCache } from "./postgres-judge-cache.ts";
import { AnsweredKeys, createPostgresJudgeLeases } from "./postgres-judge-leases.ts";
import { judgeKeyChannel, PostgresKeyListener } from "./postgres-key-listener.ts";
import { PostgresPool } from "./postgres-pool.ts";
import { postgresRetryPolicy, retryPostgresCall } from "./postgres-retry.ts";
import { createPostgresRuns } from "./postgres-runs.ts";
import { migratePostgresSchema, POSTGRES_SCHEMA_VERSION } from "./postgres-schema.ts";
import { createPostgresShards } from "./postgres-shards.ts";
import type {
  JudgeBatchLog,
  JudgeCache,
  JudgeLeases,
  Store,
  StoreCalibrations,
  StoreRuns,
  StoreShards,
} from "./run-store.ts";

/** Options of {@link PostgresRunStore.open}. */
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
  /**
   * How many connections calls made at the same time share (plus one, opened on the first
   * wait for another process's judge answer, that listens for answers). @default 4
   */
  maxConnections?: number | undefined;
  /** @default 15000 (or the URL's connect_timeout) */
  connectTimeoutMs?: number | undefined;
  /** @default 60000 */
  statementTimeoutMs?: number | undefined;
  /**
   * How long a call goes on retrying, after its first failure, statements that failed for a
   * passing reason: a restart, a failover, a connection refused, reset or terminated
   * (`pg_terminate_backend`), the server starting up or out of connections, a deadlock or
   * serialization failure. Waits grow from 100 ms to 2 s, jittered; broken connections are
   * dropped and new ones opened. Past the bound the call fails with a `StoreError` that says
   * so. Opening the store is not retried (unless `retryOpen`): a wrong URL fails at once. `0`:
   * never retry. The URL's `?retry_for_ms=` wins.
   * @default 60000
   */
  retryForMs?: number | undefined;
  /**
   * Opening waits out a server that is away for a passing reason (refused, restarting), for
   * `retryForMs`, as calls do: for a process that joins a run already going (a Vitest worker
   * of `verdict test run`, whose main process opened the store first). Otherwise opening
   * fails at once, so that a wrong URL is said at once. @default false
   */
  retryOpen?: boolean | undefined;
}

/**
 * A store in a PostgreSQL database that a team shares: runs, test results, shards' parts,
 * calibrations and the judge cache, with leases so that machines asking the same judge
 * request at once pay for it once (the others wait on LISTEN/NOTIFY for its answer). Chosen
 * with `VERDICT_STORE=postgres://…`, `store: "postgres://…"`, or an opened instance. The
 * schema is created and migrated on first use (concurrent first uses take turns). Calls run
 * on a small pool of connections, so that concurrent writes go side by side. Everything
 * written has its secrets masked, as in the SQLite store; the connection's password is never
 * written or printed. Needs the `pg` package (`npm install pg`).
 * @example
 * await using store = await PostgresRunStore.open({ url: "postgres://ci@db.internal/evals?sslmode=verify-full" });
 * await evaluate({ testCases, metrics, store });
 */
export class PostgresRunStore implements Store {
  /** Where the store is, for messages: `postgres://user@host:port/db (schema verdict)`, no password. */
  readonly target: string;
  readonly runs: StoreRuns;
  readonly shards: StoreShards;
  readonly calibrations: StoreCalibrations;
  /** Judge answers in the same database; storing one wakes the processes waiting for it. */
  readonly judgeCache: JudgeCache;
  /** Provider batches of judge requests in flight, in the same database. */
  readonly judgeBatches: JudgeBatchLog;
  /** Leases on judge cache keys, by the server's clock, with waits woken by LISTEN/NOTIFY. */
  readonly leases: Required<JudgeLeases>;
  private readonly pool: PostgresPool;
  private readonly listener: PostgresKeyListener;

  /**
   * Connects, checks the schema (applying pending migrations unless `migrate: false`) and
   * returns the open store; fails with a `StoreError` that says what to do.
   * @example
   * const store = await PostgresRunStore.open({ url: process.env.VERDICT_STORE ?? "" });
   */
  static async open(options: PostgresRunStoreOptions): Promise<PostgresRunStore> {
    const connection = resolveConnection(options);
    const leaseMs = options.leaseMs ?? 30_000;
    if (!(leaseMs >= 100)) {
      throw new StoreError(`leaseMs must be at least 100 milliseconds; got ${options.leaseMs}.`);
    }
    const maxConnections = options.maxConnections ?? 4;
    if (!Number.isSafeInteger(maxConnections) || maxConnections < 1) {
      throw new StoreError(
        `maxConnections must be a whole number of at least 1; got ${options.maxConnections}.`,
      );
    }
    const connect = () => PostgresPool.connect(connection, { maxConnections });
    const pool = await usePostgres(connection, "open", () =>
      options.retryOpen ? retryPostgresCall(connect, postgresRetryPolicy(connection)) : connect(),
    );
    try {
      await openSchema(pool, connection, options.migrate ?? true);
    } catch (error) {
      await pool.close();
      throw error;
    }
    return new PostgresRunStore({ pool, connection, leaseMs });
  }

  /**
   * Applies pending schema migrations and returns the versions before and after: what
   * `verdict store migrate` does.
   * @example
   * const { before, after } = await PostgresRunStore.migrate({ url: process.env.VERDICT_STORE ?? "" });
   */
  static async migrate(
    options: PostgresRunStoreOptions,
  ): Promise<{ target: string; before: number[]; after: number[] }> {
    const connection = resolveConnection(options);
    const use = <Result>(operation: () => Promise<Result>) =>
      usePostgres(connection, "migrate", operation);
    const pool = await use(() => PostgresPool.connect(connection, { maxConnections: 1 }));
    try {
      const schema = connection.schema;
      const before = await use(() => migratePostgresSchema(pool, { schema, check: true }));
      checkNotNewer(connection, before);
      const after = await use(() => migratePostgresSchema(pool, { schema, check: false }));
      return { target: connection.target, before, after };
    } finally {
      await pool.close();
    }
  }

  private constructor(options: {
    pool: PostgresPool;
    connection: PostgresConnection;
    leaseMs: number;
  }) {
    const { pool, connection, leaseMs } = options;
    this.pool = pool;
    this.target = connection.target;
    const access = createPostgresAccess({ pool, connection });
    const channel = judgeKeyChannel(connection.schema);
    this.listener = new PostgresKeyListener({
      driver: pool.driver,
      config: pool.clientConfig,
      channel,
    });
    this.runs = createPostgresRuns(access);
    this.shards = createPostgresShards(access);
    this.calibrations = createPostgresCalibrations(access);
    const answered = new AnsweredKeys();
    this.judgeCache = createPostgresJudgeCache({
      access,
      channel,
      onAnswered: (key) => answered.add(key),
    });
    this.judgeBatches = createPostgresJudgeBatchLog(access);
    this.leases = createPostgresJudgeLeases({
      access,
      channel,
      listener: this.listener,
      answered,
      leaseMs,
    });
  }

  /** Statements sent so far and the milliseconds until their answers, for benchmarks. */
  get timing(): { calls: number; totalMs: number } {
    return { ...this.pool.timing };
  }

  /**
   * Closes the connections once the calls in progress are done, and wakes any wait for a
   * judge answer. Closing twice is harmless; any other call afterwards fails with a StoreError.
   */
  async close(): Promise<void> {
    await Promise.all([this.listener.close(), this.pool.close()]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
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
    retryForMs: options.retryForMs,
  });
  // Masked wherever it might appear from now on (a driver's message, a report).
  registerSecretValues([connection.spec.password]);
  return connection;
}

async function openSchema(
  pool: PostgresPool,
  connection: PostgresConnection,
  migrate: boolean,
): Promise<void> {
  const schema = connection.schema;
  const use = <Result>(operation: () => Promise<Result>) =>
    usePostgres(connection, "open", operation);
  const versions = await use(() => migratePostgresSchema(pool, { schema, check: true }));
  checkNotNewer(connection, versions);
  if (versions.length === POSTGRES_SCHEMA_VERSION) return;
  if (!migrate) {
    throw postgresStoreFailure(
      connection,
      "open",
      `its schema is at version ${versions.length}, this verdict needs ${POSTGRES_SCHEMA_VERSION}: run verdict store migrate`,
    );
  }
  await use(() => migratePostgresSchema(pool, { schema, check: false }));
}

function checkNotNewer(connection: PostgresConnection, versions: readonly number[]): void {
  const newest = Math.max(0, ...versions);
  if (newest > POSTGRES_SCHEMA_VERSION) {
    throw postgresStoreFailure(
      connection,
      "open",
      `it was written by a newer verdict (schema ${newest}; this version knows up to ${POSTGRES_SCHEMA_VERSION}): upgrade verdict`,
    );
  }
}
