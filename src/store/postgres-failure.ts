import type { PostgresConnection } from "./postgres-connection.ts";

/** A failure of the driver or the server, as plain data, for the store to word. */
export interface PostgresFailure {
  message: string;
  /** SQLSTATE (e.g. `23505`) or Node's error code (`ECONNREFUSED`). */
  code: string | null;
  detail: string | null;
  /** Which statement of a batch failed. */
  statement: number | null;
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
