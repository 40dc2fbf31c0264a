import os from "node:os";
import { StoreError } from "../errors/store-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";

/** Whether a store setting names a PostgreSQL database (`postgres://…`, `postgresql://…`). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(text.trim());
}

const SSL_MODES = new Set(["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]);
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** How long a store call retries a passing failure (a restart, a failover) by default. */
export const DEFAULT_RETRY_FOR_MS = 60_000;

/** The schema that holds verdict's tables when none is named. */
export const DEFAULT_POSTGRES_SCHEMA = "verdict";

/** Options of {@link resolvePostgresConnection}. */
export interface ResolvePostgresConnectionOptions {
  url: string;
  /** Where PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, … are read. */
  env: NodeJS.ProcessEnv;
  /** The schema of verdict's tables; the URL's `?schema=` wins. */
  schema?: string | undefined;
  ssl?: Record<string, unknown> | boolean | undefined;
  connectTimeoutMs?: number | undefined;
  statementTimeoutMs?: number | undefined;
  /** How long a call retries a passing failure; the URL's `?retry_for_ms=` wins. */
  retryForMs?: number | undefined;
}

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
  /**
   * How long a store call goes on retrying a statement that failed for a passing reason (a
   * restart, a failover, a lost connection) after its first failure.
   */
  retryForMs: number;
}

/** A resolved connection: what the driver needs, and how messages name it. */
export interface PostgresConnection {
  spec: PostgresConnectionSpec;
  schema: string;
  /** `postgres://user@host:port/database (schema verdict)`: never the password. */
  target: string;
}

function invalid(url: string, reason: string): StoreError {
  return new StoreError(
    `The PostgreSQL store URL ${redactSecretText(url)} is not usable: ${reason}. ` +
      "Write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&schema=…].",
  );
}

function decode(url: string, text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid(url, `"${redactSecretText(text)}" is not valid percent-encoding`);
  }
}

/**
 * Where and how to connect, from a `postgres://` URL with the PG* variables of `env` for what
 * it leaves out (as libpq reads them): host, port, user, password, database, sslmode and its
 * certificate files, application name. `?schema=NAME` names the schema of verdict's tables
 * (default `verdict`); other query parameters libpq knows (`sslmode`, `sslrootcert`,
 * `sslcert`, `sslkey`, `application_name`, `options`, `connect_timeout`) are taken too, and
 * `?retry_for_ms=` sets how long calls retry a lost connection (see `retryForMs`).
 * @example
 * resolvePostgresConnection({ url: "postgres://ci@db.internal/evals?sslmode=verify-full", env: process.env });
 */
export function resolvePostgresConnection(
  options: ResolvePostgresConnectionOptions,
): PostgresConnection {
  const { url, env } = options;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw invalid(url, "it is not a URL");
  }
  if (!/^postgres(?:ql)?:$/i.test(parsed.protocol)) {
    throw invalid(url, "it must start with postgres:// or postgresql://");
  }
  const parameters = parsed.searchParams;
  const known = new Set([
    "schema",
    "host",
    "port",
    "user",
    "password",
    "dbname",
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "application_name",
    "options",
    "connect_timeout",
    "retry_for_ms",
  ]);
  for (const name of parameters.keys()) {
    if (!known.has(name)) {
      throw invalid(
        url,
        `verdict does not know the parameter "${name}" (it knows ${[...known].join(", ")})`,
      );
    }
  }
  const setting = (parameter: string, variable: string) =>
    parameters.get(parameter) ?? (env[variable]?.trim() || null);

  const host =
    parameters.get("host") ??
    (parsed.hostname === "" ? null : decode(url, parsed.hostname).replace(/^\[(.*)\]$/, "$1")) ??
    (env.PGHOST?.trim() || "localhost");
  const portText = parameters.get("port") ?? (parsed.port || env.PGPORT?.trim() || "5432");
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw invalid(url, `the port "${portText}" is not a port number`);
  }
  const user =
    parameters.get("user") ??
    (parsed.username === "" ? null : decode(url, parsed.username)) ??
    (env.PGUSER?.trim() || os.userInfo().username);
  const password =
    parameters.get("password") ??
    (parsed.password === "" ? null : decode(url, parsed.password)) ??
    (env.PGPASSWORD || null);
  const path = decode(url, parsed.pathname.replace(/^\//, ""));
  const database = parameters.get("dbname") ?? (path || env.PGDATABASE?.trim() || user);
  // Without an sslmode, libpq's default (prefer); TLS options given in code mean what they
  // mean to pg: TLS with the certificate checked (verify-full), unless `ssl: false`.
  const sslDefault =
    options.ssl === undefined ? "prefer" : options.ssl === false ? "disable" : "verify-full";
  const sslMode = (setting("sslmode", "PGSSLMODE") ?? sslDefault).trim().toLowerCase();
  if (!SSL_MODES.has(sslMode)) {
    throw invalid(url, `sslmode "${sslMode}" is not one of ${[...SSL_MODES].join(", ")}`);
  }
  const schema = parameters.get("schema") ?? options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw invalid(
      url,
      `the schema "${schema}" must be a lower-case SQL name (letters, digits, _; not starting with a digit)`,
    );
  }
  const connectTimeoutText = parameters.get("connect_timeout") ?? env.PGCONNECT_TIMEOUT?.trim();
  const connectTimeoutMs =
    connectTimeoutText && /^\d+$/.test(connectTimeoutText) && Number(connectTimeoutText) > 0
      ? Number(connectTimeoutText) * 1000
      : (options.connectTimeoutMs ?? 15_000);
  const retryForText = parameters.get("retry_for_ms");
  if (retryForText !== null && !/^\d+$/.test(retryForText)) {
    throw invalid(url, `retry_for_ms "${retryForText}" is not a whole number of milliseconds`);
  }
  const retryForMs =
    retryForText === null ? (options.retryForMs ?? DEFAULT_RETRY_FOR_MS) : Number(retryForText);
  if (!(Number.isFinite(retryForMs) && retryForMs >= 0)) {
    throw new StoreError(
      `retryForMs must be 0 (never retry) or more milliseconds; got ${options.retryForMs}.`,
    );
  }
  const spec: PostgresConnectionSpec = {
    host,
    port,
    user,
    password,
    database,
    applicationName: setting("application_name", "PGAPPNAME") ?? "verdict",
    sslMode,
    sslRootCert: setting("sslrootcert", "PGSSLROOTCERT"),
    sslCert: setting("sslcert", "PGSSLCERT"),
    sslKey: setting("sslkey", "PGSSLKEY"),
    ssl: typeof options.ssl === "object" ? options.ssl : null,
    options: setting("options", "PGOPTIONS"),
    connectTimeoutMs,
    statementTimeoutMs: options.statementTimeoutMs ?? 60_000,
    retryForMs,
  };
  const hostPart = host.includes(":") ? `[${host}]` : host;
  const target = `postgres://${encodeURIComponent(user)}@${hostPart.startsWith("/") ? encodeURIComponent(hostPart) : hostPart}:${port}/${encodeURIComponent(database)} (schema ${schema})`;
  return { spec, schema, target };
}
