import { performance } from "node:perf_hooks";
import type { ClientBase, ClientConfig, Pool, PoolClient } from "pg";
import { StoreError } from "../errors/store-error.ts";
import { postgresClientConfig } from "./postgres-client-config.ts";
import type { PostgresConnection } from "./postgres-connection.ts";
import { PostgresFailureError, toPostgresFailure } from "./postgres-failure.ts";

/** The `pg` module's default export: `Pool`, `Client`, … */
export type PostgresDriver = typeof import("pg")["default"];

/**
 * Loads the `pg` driver on first use: an optional peer dependency, needed only by whoever
 * opens a PostgreSQL store. Fails with a `StoreError` saying how to install it.
 */
export async function loadPostgresDriver(): Promise<PostgresDriver> {
  try {
    return (await import("pg")).default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new StoreError(
      "The PostgreSQL store needs the pg driver, which is not installed: run npm install pg " +
        "(or leave VERDICT_STORE unset to use the SQLite store in .verdict/).",
      { cause: error },
    );
  }
}

/** A statement's parameter, or an element of an array parameter. */
export type PostgresValue = string | number | boolean | null;

/** One SQL statement with its parameters. */
export interface PostgresStatement {
  text: string;
  values?: ReadonlyArray<PostgresValue | readonly PostgresValue[]>;
}

/** The result of one statement. */
export interface PostgresResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number;
}

const ignore = () => {};

/**
 * The PostgreSQL store's connections: a `pg.Pool`, so that calls made at the same time (the
 * saves and cache writes of concurrent test cases) run side by side on several connections
 * instead of queueing behind one. Statements that must hold together run on one connection, in
 * one transaction (`atomic`). Failures are `PostgresFailureError`s, for the store to word;
 * time spent in statements is counted (see {@link PostgresPool.timing}).
 */
export class PostgresPool {
  /** Statements sent and milliseconds until their answers (pool waits included), for benchmarks. */
  readonly timing = { calls: 0, totalMs: 0 };
  /** What each connection is opened with (TLS settled), for a connection of one's own. */
  readonly clientConfig: ClientConfig;
  readonly driver: PostgresDriver;
  private readonly pool: Pool;
  private readonly clients = new Set<ClientBase>();
  private ended = false;

  private constructor(driver: PostgresDriver, clientConfig: ClientConfig, maxConnections: number) {
    this.driver = driver;
    this.clientConfig = clientConfig;
    this.pool = new driver.Pool({
      ...clientConfig,
      max: maxConnections,
      // Idle connections never keep the process alive: a store left open does not hang a CLI.
      allowExitOnIdle: true,
      onConnect: async (client: ClientBase) => {
        // A connection lost while checked out fails the call that uses it; without a listener
        // its "error" event would end the process.
        client.on("error", ignore);
        // A commit returns without waiting for the server's disk flush: a crash of the server
        // may lose the last fraction of a second of writes, never corrupt anything — the trade
        // SQLite's store makes too (WAL, synchronous = NORMAL). A lost result is scored again
        // by resume; waiting for a flush on every result would cost each case a disk round trip.
        await client.query("SET synchronous_commit TO off");
      },
    });
    // An idle connection that breaks is dropped by the pool; the next call opens another.
    this.pool.on("error", ignore);
    this.pool.on("connect", (client) => this.clients.add(client));
    this.pool.on("remove", (client) => this.clients.delete(client));
  }

  /**
   * Opens a pool and its first connection, which tells whether the server is there, takes the
   * credentials and speaks TLS (with sslmode=prefer, a server without TLS is then used
   * without it).
   */
  static async connect(
    connection: PostgresConnection,
    options: { maxConnections: number },
  ): Promise<PostgresPool> {
    const driver = await loadPostgresDriver();
    const { spec } = connection;
    for (let tlsFallback = false; ; tlsFallback = true) {
      let config: ClientConfig;
      try {
        config = await postgresClientConfig(spec, { tlsFallback });
      } catch (error) {
        throw new PostgresFailureError(toPostgresFailure(error), { cause: error });
      }
      const pool = new PostgresPool(driver, config, options.maxConnections);
      try {
        await pool.withClient(async () => {});
        return pool;
      } catch (error) {
        await pool.close();
        const noTls =
          error instanceof PostgresFailureError &&
          /does not support SSL/i.test(error.failure.message);
        if (!(noTls && spec.sslMode === "prefer" && !tlsFallback)) throw error;
      }
    }
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Runs statements in order on one connection (in one transaction when `atomic`). */
  run(
    statements: readonly PostgresStatement[],
    options: { atomic?: boolean } = {},
  ): Promise<PostgresResult[]> {
    return this.withClient(async (client) => {
      if (!options.atomic) return this.runStatements(client, statements);
      await this.timed(() => client.query("BEGIN"));
      try {
        const results = await this.runStatements(client, statements);
        await this.timed(() => client.query("COMMIT"));
        return results;
      } catch (error) {
        await client.query("ROLLBACK").catch(ignore);
        throw error;
      }
    });
  }

  /**
   * Runs SQL text of several statements, without parameters (values inlined with
   * {@link PostgresPool.literal}), in one round trip: PostgreSQL runs them in one transaction,
   * each statement seeing what committed before it began.
   */
  runScript(text: string): Promise<PostgresResult[]> {
    return this.withClient(async (client) => {
      const answer: unknown = await this.timed(() => client.query(text));
      const results = (Array.isArray(answer) ? answer : [answer]) as Array<{
        rows: Array<Record<string, unknown>>;
        rowCount: number | null;
      }>;
      return results.map((result) => ({ rows: result.rows, rowCount: result.rowCount ?? 0 }));
    });
  }

  /** A string as an SQL literal, for {@link PostgresPool.runScript}. */
  literal(value: string): string {
    return this.driver.escapeLiteral(value);
  }

  /**
   * Lends `body` one connection of the pool. What it throws becomes a `PostgresFailureError`;
   * a connection that failed other than by the server's answer is closed, not reused.
   */
  async withClient<Result>(body: (client: PoolClient) => Promise<Result>): Promise<Result> {
    if (this.ended) {
      throw new PostgresFailureError({
        message: "the store is closed",
        code: "CLOSED",
        detail: null,
        statement: null,
      });
    }
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw asFailure(error);
    }
    try {
      const result = await body(client);
      client.release();
      return result;
    } catch (error) {
      // The server's refusal of a statement (severity ERROR: a constraint, a timeout) leaves
      // the connection usable; a connection that failed otherwise (lost, reset, or ended by
      // the server with a FATAL error: a restart, pg_terminate_backend) is closed, never
      // handed to the next call.
      const usable =
        error instanceof StoreError ||
        (error as { severity?: unknown } | null)?.severity === "ERROR";
      client.release(usable ? undefined : (error as Error));
      throw error instanceof StoreError ? error : asFailure(error);
    }
  }

  /** Ends every connection once the calls in progress are done. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // Idle connections do not keep the process alive; while they close, they must, or a
    // caller awaiting close() would see the process end first.
    for (const client of this.clients) refConnection(client);
    await this.pool.end().catch(ignore);
  }

  private async runStatements(
    client: PoolClient,
    statements: readonly PostgresStatement[],
  ): Promise<PostgresResult[]> {
    const results: PostgresResult[] = [];
    for (const [position, statement] of statements.entries()) {
      let result: { rows: Array<Record<string, unknown>>; rowCount: number | null };
      try {
        result = await this.timed(() =>
          client.query({
            text: statement.text,
            values: statement.values === undefined ? [] : [...statement.values],
          }),
        );
      } catch (error) {
        throw Object.assign(error as Error, { statementIndex: position });
      }
      results.push({ rows: result.rows, rowCount: result.rowCount ?? 0 });
    }
    return results;
  }

  private async timed<Result>(operation: () => Promise<Result>): Promise<Result> {
    const started = performance.now();
    try {
      return await operation();
    } finally {
      this.timing.calls += 1;
      this.timing.totalMs += performance.now() - started;
    }
  }
}

/** Lets a connection's socket keep the process alive again (pg has `ref`, its types do not). */
export function refConnection(client: ClientBase): void {
  (client as ClientBase & { ref?: () => void }).ref?.();
}

/** Lets the process end while only this connection is open. */
export function unrefConnection(client: ClientBase): void {
  (client as ClientBase & { unref?: () => void }).unref?.();
}

function asFailure(error: unknown): PostgresFailureError {
  if (error instanceof PostgresFailureError) return error;
  const index = (error as { statementIndex?: unknown } | null)?.statementIndex;
  return new PostgresFailureError(
    toPostgresFailure(error, typeof index === "number" ? index : null),
    { cause: error },
  );
}
