import type { PostgresConnection } from "./postgres-connection.ts";

/** A failure of the driver or the server, as plain data, for the store to word. */
export interface PostgresFailure {
  message: string;
  /** SQLSTATE (e.g. `23505`) or Node's error code (`ECONNREFUSED`). */
  code: string | null;
  detail: string | null;
  /** Which statement of a batch failed. */
  statement: number | null;
  /**
   * Set when a passing failure was retried (see `retryPostgresCall`) until the retry bound ran
   * out: how many tries were made, over how many milliseconds since the first failure.
   */
  retried?: { attempts: number; elapsedMs: number } | undefined;
}

/** What a {@link PostgresPool} call throws: the failure, with the driver's error as its cause. */
export class PostgresFailureError extends Error {
  readonly failure: PostgresFailure;

  constructor(failure: PostgresFailure, options: { cause?: unknown } = {}) {
    super(failure.message, options);
    this.name = "PostgresFailureError";
    this.failure = failure;
  }
}

/** The failure a driver's (or Node's) error stands for; `statement`: which one of a batch. */
export function toPostgresFailure(
  error: unknown,
  statement: number | null = null,
): PostgresFailure {
  const fields = (error ?? {}) as {
    message?: unknown;
    code?: unknown;
    detail?: unknown;
    errors?: unknown;
  };
  // A connection refused on every address arrives as an AggregateError without a message.
  const first = Array.isArray(fields.errors) ? (fields.errors[0] as typeof fields) : undefined;
  const message = String(fields.message || first?.message || error);
  const code = fields.code ?? first?.code;
  return {
    message,
    code: typeof code === "string" ? code : null,
    detail: typeof fields.detail === "string" ? fields.detail : null,
    statement,
  };
}

// Node's codes of a connection that was refused, reset or lost on the way: the server is
// restarting, failing over, or the network blinked. ENOTFOUND is not among them: an unknown
// host is a wrong URL far more often than a DNS record in flux.
const TRANSIENT_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
]);

// SQLSTATEs of a server going away or not ready yet, and of statements the server asks to run
// again: 57P01 admin_shutdown (restart, pg_terminate_backend), 57P02 crash_shutdown,
// 57P03 cannot_connect_now (starting up, in recovery), 57P05 idle_session_timeout, 53300
// too_many_connections (every client reconnecting at once), 25006 read_only_sql_transaction
// (a failover not done yet: the address still leads to a standby), 40001
// serialization_failure, 40P01 deadlock_detected. Class 08 (connection exceptions) is taken
// whole but for 08P01, a protocol violation, which a retry would only repeat.
const TRANSIENT_SQLSTATES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "57P05",
  "53300",
  "25006",
  "40001",
  "40P01",
]);

// What pg and pg-pool say, without a code, of a connection that broke or never came.
const TRANSIENT_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout/i;

/**
 * Whether a failure is one that passes (a restart, a failover, a lost connection, a deadlock),
 * so that running the same statements again may succeed: never a refusal of the statement
 * itself (a constraint, a syntax error, a missing privilege or table, a statement timeout).
 */
export function isTransientPostgresFailure(failure: PostgresFailure): boolean {
  const { code } = failure;
  if (code !== null) {
    if (TRANSIENT_NODE_CODES.has(code) || TRANSIENT_SQLSTATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return code !== "08P01";
    if (/^[0-9A-Z]{5}$/.test(code) || code === "CLOSED") return false;
  }
  return TRANSIENT_MESSAGES.test(failure.message);
}

const CERTIFICATE_CODES = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** What went wrong and what to do, from a failure of the driver or the server. */
export function describePostgresFailure(
  failure: PostgresFailure,
  connection: PostgresConnection,
): string {
  const { spec } = connection;
  const where = `${spec.host}:${spec.port}`;
  const detail = failure.message;
  switch (failure.code) {
    case "ECONNREFUSED":
      return `nothing answers at ${where} (${detail}): check the host and port of the URL (or PGHOST, PGPORT), and that PostgreSQL runs there`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `the host ${spec.host} is not known (${detail}): check the URL's host (or PGHOST)`;
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `${where} cannot be reached (${detail}): check the network and the URL's host`;
    case "28P01":
    case "28000":
      return `the server refused user "${spec.user}" (${detail}): check the user and the password (in the URL or PGPASSWORD)`;
    case "3D000":
      return `the database "${spec.database}" does not exist (${detail}): create it (createdb ${spec.database}) or fix the URL`;
    case "3F000":
    case "42P01":
      return `verdict's tables are missing (${detail}): run verdict store migrate`;
    case "42501":
      return `user "${spec.user}" lacks a privilege (${detail}): grant it CREATE on the database, or run verdict store migrate once as the database's owner`;
    case "53300":
      return `the server has no free connection (${detail}): retry, or raise max_connections`;
    case "57014":
      return `a statement ran past the timeout (${detail}): retry, or check the server's load`;
    case "57P01":
    case "57P03":
      return `the server is shutting down or starting (${detail}): retry in a moment`;
    case "VERDICT_TLS_FILE":
      return `${detail}: check sslrootcert, sslcert and sslkey (or PGSSLROOTCERT, PGSSLCERT, PGSSLKEY)`;
  }
  if (failure.code !== null && CERTIFICATE_CODES.has(failure.code)) {
    return `the server's certificate is not trusted (${detail}): name its CA with sslrootcert=FILE, or use sslmode=require to encrypt without checking it`;
  }
  if (/does not support SSL/i.test(detail)) {
    return `the server offers no TLS but sslmode is ${spec.sslMode} (${detail}): enable TLS on the server, or set sslmode=disable on a trusted network`;
  }
  if (/timeout/i.test(detail)) {
    return `${where} did not answer in time (${detail}): check the host, the port and the network`;
  }
  return failure.detail === null ? detail : `${detail} (${failure.detail})`;
}
