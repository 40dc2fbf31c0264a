import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { createSyncFn } from "synckit";
import { StoreError } from "../errors/store-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import type { PostgresConnection } from "./postgres-connection.ts";
import type {
  PostgresFailure,
  PostgresMigration,
  PostgresRequest,
  PostgresResponse,
  PostgresResult,
  PostgresStatement,
} from "./postgres-protocol.ts";

type CallWorker = (request: PostgresRequest) => PostgresResponse;

// One worker thread per process serves every PostgreSQL store in it (synckit keeps one per
// file). It is unref'd: it never keeps the process alive.
let callWorker: CallWorker | null = null;

// A last resort only: the driver's own timeouts (connect, statement, a silent server) answer
// long before, so a call never blocks this thread for ever.
const WORKER_TIMEOUT_MS = 600_000;

function workerCall(): CallWorker {
  if (callWorker !== null) return callWorker;
  try {
    createRequire(import.meta.url).resolve("pg");
  } catch {
    throw new StoreError(
      "The PostgreSQL store needs the pg driver, which is not installed: run npm install pg " +
        "(or leave VERDICT_STORE unset to use the SQLite store in .verdict/).",
    );
  }
  // The worker beside this file: .ts when verdict runs from its sources, .js once built.
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  callWorker = createSyncFn(new URL(`./postgres-worker${extension}`, import.meta.url).href, {
    timeout: WORKER_TIMEOUT_MS,
  }) as CallWorker;
  return callWorker;
}

const CERTIFICATE_CODES = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** What went wrong and what to do, from a failure the worker reported. */
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

/**
 * One connection of the PostgreSQL store: each call sends statements to the worker thread
 * and waits for the rows, so that the store stays synchronous. Failures are `PostgresFailure`s,
 * for the store to word; time spent waiting is counted (see {@link PostgresClient.timing}).
 */
export class PostgresClient {
  readonly connection: PostgresConnection;
  /** Calls made and milliseconds spent waiting for them, for benchmarks. */
  readonly timing = { calls: 0, totalMs: 0 };
  private handle: number | null;
  private readonly call: CallWorker;

  /** Connects; throws a `PostgresClientError` when the server cannot be reached or refuses. */
  constructor(connection: PostgresConnection) {
    this.connection = connection;
    this.call = workerCall();
    const response = this.send({ kind: "open", spec: connection.spec });
    this.handle = response.handle ?? null;
  }

  get closed(): boolean {
    return this.handle === null;
  }

  /** Runs statements in order (in one transaction when `atomic`), one round trip. */
  run(
    statements: readonly PostgresStatement[],
    options: { atomic?: boolean } = {},
  ): PostgresResult[] {
    const response = this.send({
      kind: "run",
      handle: this.openHandle(),
      statements,
      atomic: options.atomic ?? false,
    });
    return response.results ?? [];
  }

  /** Applies the pending steps (or, with `check`, only reads them); returns the applied versions. */
  migrate(options: {
    schema: string;
    migrations: readonly PostgresMigration[];
    check: boolean;
  }): number[] {
    const response = this.send({ kind: "migrate", handle: this.openHandle(), ...options });
    return response.versions ?? [];
  }

  close(): void {
    const handle = this.handle;
    this.handle = null;
    if (handle !== null) this.send({ kind: "close", handle });
  }

  private openHandle(): number {
    if (this.handle === null)
      throw new PostgresClientError({
        message: "the store is closed",
        code: "CLOSED",
        detail: null,
        statement: null,
      });
    return this.handle;
  }

  private send(request: PostgresRequest): Extract<PostgresResponse, { ok: true }> {
    const started = performance.now();
    let response: PostgresResponse;
    try {
      response = this.call(request);
    } catch (error) {
      // The worker itself failed (it could not start, or it timed out).
      throw new PostgresClientError({
        message: redactSecretText((error as Error).message),
        code: "WORKER",
        detail: null,
        statement: null,
      });
    } finally {
      this.timing.calls += 1;
      this.timing.totalMs += performance.now() - started;
    }
    if (!response.ok) throw new PostgresClientError(response.failure);
    return response;
  }
}

/** A failure of a {@link PostgresClient} call, carrying what the worker reported. */
export class PostgresClientError extends Error {
  readonly failure: PostgresFailure;

  constructor(failure: PostgresFailure) {
    super(failure.message);
    this.name = "PostgresClientError";
    this.failure = failure;
  }
}
