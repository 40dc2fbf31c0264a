import type { DatabaseSync } from "node:sqlite";
import type { StoreError } from "../errors/store-error.ts";
import { loadNodeSqlite } from "./load-node-sqlite.ts";
import { sqliteStoreFailure, toSqliteStoreError } from "./sqlite-failure.ts";
import {
  migrateSqliteSchema,
  prepareSqliteStatements,
  type SqliteStatements,
} from "./sqlite-schema.ts";
import { toStoredJson } from "./stored-json.ts";

/**
 * The open SQLite file and what the parts of the SQLite store (runs, shards, calibrations,
 * judge cache, leases) share: its statements, write transactions, the JSON written and the
 * wording of failures. Every failure is a `StoreError` that names the file.
 */
export class SqliteAccess {
  /** The database file, for messages. */
  readonly path: string;
  private database: DatabaseSync | null;
  private statements: SqliteStatements | null;

  /**
   * Opens `path` (a resolved file, or `:memory:`): sets the busy timeout and the WAL journal,
   * applies pending migrations and prepares the statements.
   */
  constructor(options: { path: string; busyTimeoutMs?: number | undefined }) {
    this.path = options.path;
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
      migrateSqliteSchema(database, this.path);
      this.statements = prepareSqliteStatements(database);
      this.database = database;
    } catch (error) {
      // The open failed: report why, not a failure to close a half-open file.
      try {
        database?.close();
      } catch {}
      throw toSqliteStoreError(this.path, "open", error);
    }
  }

  /**
   * Runs `operation` on the statements of the open file, turning what it throws into a
   * `StoreError` that names `action` and says what to do.
   */
  use<Result>(action: string, operation: (statements: SqliteStatements) => Result): Result {
    if (this.statements === null) {
      throw this.failure(action, "the store is closed: open a new SqliteRunStore");
    }
    try {
      return operation(this.statements);
    } catch (error) {
      throw toSqliteStoreError(this.path, action, error);
    }
  }

  /** Runs `body` in one write transaction (`BEGIN IMMEDIATE`): all of it, or nothing. */
  transaction<Result>(body: () => Result): Result {
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

  /** The JSON text that is written, with secrets masked (see {@link toStoredJson}). */
  json(action: string, value: unknown): string {
    try {
      return toStoredJson(value);
    } catch (error) {
      throw this.failure(action, (error as Error).message, error);
    }
  }

  /** A `StoreError`: could not `action` in the store, because `reason`. */
  failure(action: string, reason: string, cause?: unknown): StoreError {
    return sqliteStoreFailure(this.path, action, reason, cause);
  }

  /** Closes the file. Closing twice is harmless; any use afterwards throws a StoreError. */
  close(): void {
    const database = this.database;
    this.database = null;
    this.statements = null;
    database?.close();
  }
}
