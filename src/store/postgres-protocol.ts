/**
 * What the PostgreSQL store's main thread and its worker thread say to each other (see
 * postgres-worker.ts). Everything here is plain data: it crosses threads by structured clone.
 */

/** How to reach the server: resolved from the URL and the PG* variables, never logged. */
export interface PostgresConnectionSpec {
  host: string;
  port: number;
  user: string;
  password: string | null;
  database: string;
  applicationName: string;
  /** libpq's sslmode: disable, allow, prefer, require, verify-ca or verify-full. */
  sslMode: string;
  /** Files named by sslrootcert, sslcert and sslkey (`"system"`: the system's CAs). */
  sslRootCert: string | null;
  sslCert: string | null;
  sslKey: string | null;
  /** TLS options given in code (plain data), laid over what sslmode sets. */
  ssl: Record<string, unknown> | null;
  /** libpq's `options` (e.g. `-c search_path=…`), passed on as is. */
  options: string | null;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

/** One SQL statement with its parameters. */
export interface PostgresStatement {
  text: string;
  values?: ReadonlyArray<string | number | boolean | null | readonly string[]>;
  /**
   * Skip the statements after this one (they get no results) when it returns rows
   * (`"rows"`) or none (`"no-rows"`).
   */
  stopIf?: "rows" | "no-rows";
}

/** A step of the schema: the SQL that turns version `version - 1` into `version`. */
export interface PostgresMigration {
  version: number;
  description: string;
  /** Statements; `{schema}` stands for the quoted schema name. */
  statements: readonly string[];
}

export type PostgresRequest =
  | { kind: "open"; spec: PostgresConnectionSpec }
  | {
      kind: "run";
      handle: number;
      statements: readonly PostgresStatement[];
      /** All or nothing: the statements run in one transaction. */
      atomic: boolean;
    }
  | {
      kind: "migrate";
      handle: number;
      schema: string;
      migrations: readonly PostgresMigration[];
      /** Only read the applied versions; apply nothing. */
      check: boolean;
    }
  | { kind: "close"; handle: number };

/** The result of one statement. */
export interface PostgresResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number;
}

/** A failure, as plain data: the driver's or the server's error, without the connection's secrets. */
export interface PostgresFailure {
  message: string;
  /** SQLSTATE (e.g. `23505`) or Node's error code (`ECONNREFUSED`). */
  code: string | null;
  detail: string | null;
  /** Which statement of a batch failed. */
  statement: number | null;
}

export type PostgresResponse =
  | { ok: true; handle?: number; results?: PostgresResult[]; versions?: number[] }
  | { ok: false; failure: PostgresFailure };
