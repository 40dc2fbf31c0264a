/**
 * The worker thread of `PostgresRunStore`: it holds the connections and runs SQL with the
 * `pg` driver, while the store's thread waits for the answer (synckit), so that the store
 * can keep the synchronous `RunStore` interface. Only plain data crosses: statements in,
 * rows or a failure out. It imports nothing of verdict's, so Node runs it as it is.
 */
import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import type { Client, ClientConfig } from "pg";
import { runAsWorker } from "synckit";
import type {
  PostgresConnectionSpec,
  PostgresFailure,
  PostgresMigration,
  PostgresRequest,
  PostgresResponse,
  PostgresResult,
  PostgresStatement,
} from "./postgres-protocol.ts";

interface Connection {
  spec: PostgresConnectionSpec;
  client: Client | null;
  /** Whether TLS is tried first and dropped when the server has none (sslmode=prefer). */
  tlsFallback: boolean;
}

const connections = new Map<number, Connection>();
let nextHandle = 1;
type Driver = typeof import("pg")["default"];
let driver: Driver | null = null;

// Loaded on first use: the pg package is an optional peer dependency.
async function loadDriver(): Promise<Driver> {
  driver ??= (await import("pg")).default;
  return driver;
}

function readCertificate(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw Object.assign(
      new Error(`cannot read the ${what} ${file} (${(error as NodeJS.ErrnoException).code})`),
      { code: "VERDICT_TLS_FILE" },
    );
  }
}

/** pg's `ssl` from libpq's sslmode and files, with the options given in code laid over. */
function tlsOptions(spec: PostgresConnectionSpec, fallback: boolean): ClientConfig["ssl"] {
  const mode = spec.sslMode;
  if (mode === "disable" || mode === "allow" || fallback) return false;
  const options: ConnectionOptions = {};
  const rootCert = spec.sslRootCert;
  if (rootCert !== null && rootCert !== "system") {
    options.ca = readCertificate(rootCert, "root certificate (sslrootcert)");
  }
  if (spec.sslCert !== null) options.cert = readCertificate(spec.sslCert, "client certificate");
  if (spec.sslKey !== null) options.key = readCertificate(spec.sslKey, "client key");
  // As libpq: prefer and require encrypt without checking the certificate (require checks
  // the CA when one is given, in sslrootcert or the `ssl` options), verify-ca checks the CA,
  // verify-full the CA and the host name.
  const givenCa = rootCert !== null || (spec.ssl !== null && "ca" in spec.ssl);
  if (mode === "prefer" || (mode === "require" && !givenCa)) {
    options.rejectUnauthorized = false;
  } else if (mode === "require" || mode === "verify-ca") {
    options.checkServerIdentity = () => undefined;
  }
  return { ...options, ...(spec.ssl as ConnectionOptions | null) };
}

async function connect(connection: Connection): Promise<Client> {
  if (connection.client !== null) return connection.client;
  const pg = await loadDriver();
  const { spec } = connection;
  const config: ClientConfig = {
    host: spec.host,
    port: spec.port,
    user: spec.user,
    database: spec.database,
    application_name: spec.applicationName,
    ssl: tlsOptions(spec, connection.tlsFallback),
    connectionTimeoutMillis: spec.connectTimeoutMs,
    statement_timeout: spec.statementTimeoutMs,
    // The server's timeout ends a long statement; this one ends a wait on a server that went
    // silent (a lost network), so the store's thread is never blocked for ever.
    query_timeout: spec.statementTimeoutMs + 10_000,
    keepAlive: true,
    ...(spec.password === null ? {} : { password: spec.password }),
    ...(spec.options === null ? {} : { options: spec.options }),
  };
  const client = new pg.Client(config);
  // A connection lost between calls: the next call connects again.
  client.on("error", () => {
    if (connection.client === client) connection.client = null;
  });
  client.on("end", () => {
    if (connection.client === client) connection.client = null;
  });
  try {
    await client.connect();
  } catch (error) {
    client.end().catch(() => {});
    const noTls = /does not support SSL/i.test((error as Error).message);
    if (noTls && spec.sslMode === "prefer" && !connection.tlsFallback) {
      connection.tlsFallback = true;
      return connect(connection);
    }
    throw error;
  }
  // A commit returns without waiting for the server's disk flush: a crash of the server may
  // lose the last fraction of a second of writes, never corrupt anything (PostgreSQL's
  // synchronous_commit = off) — the trade SQLite's store makes too (WAL, synchronous = NORMAL).
  // A lost result is scored again by resume; waiting for a flush on every result would cost
  // each case a disk round trip.
  await client.query("SET synchronous_commit TO off");
  connection.client = client;
  return client;
}

function connectionOf(handle: number): Connection {
  const connection = connections.get(handle);
  if (connection === undefined) throw new Error("the connection is closed");
  return connection;
}

async function runStatements(
  client: Client,
  statements: readonly PostgresStatement[],
): Promise<PostgresResult[]> {
  const results: PostgresResult[] = [];
  for (const [position, statement] of statements.entries()) {
    try {
      const result = await client.query({
        text: statement.text,
        values: statement.values === undefined ? [] : [...statement.values],
      });
      results.push({ rows: result.rows, rowCount: result.rowCount ?? 0 });
      const returned = result.rows.length > 0;
      if (statement.stopIf === (returned ? "rows" : "no-rows")) break;
    } catch (error) {
      throw Object.assign(error as Error, { statementIndex: position });
    }
  }
  return results;
}

async function inTransaction<Result>(client: Client, body: () => Promise<Result>): Promise<Result> {
  await client.query("BEGIN");
  try {
    const result = await body();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

// One lock key per schema, so that processes migrating the same schema take turns.
function migrationLockKey(schema: string): string {
  let hash = 0n;
  for (const character of `verdict-migrations:${schema}`) {
    hash = (hash * 31n + BigInt(character.codePointAt(0) ?? 0)) & 0x7fff_ffff_ffff_ffffn;
  }
  return hash.toString();
}

async function migrate(
  client: Client,
  options: { schema: string; migrations: readonly PostgresMigration[]; check: boolean },
): Promise<number[]> {
  const quoted = `"${options.schema}"`;
  const applied = async () => {
    const exists = await client.query("SELECT to_regclass($1) IS NOT NULL AS present", [
      `${quoted}.schema_migrations`,
    ]);
    if (exists.rows[0]?.present !== true) return [];
    const rows = await client.query(`SELECT version FROM ${quoted}.schema_migrations`);
    return rows.rows.map((row) => Number(row.version)).sort((left, right) => left - right);
  };
  const before = await applied();
  const pending = options.migrations.filter((step) => !before.includes(step.version));
  if (options.check || pending.length === 0) return before;
  // The first use by many processes at once: one migrates, the others wait for its lock and
  // then find nothing left to do.
  return inTransaction(client, async () => {
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [
      migrationLockKey(options.schema),
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
         version integer PRIMARY KEY,
         description text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = await applied();
    for (const step of options.migrations) {
      if (done.includes(step.version)) continue;
      for (const statement of step.statements) {
        await client.query(statement.replaceAll("{schema}", quoted));
      }
      await client.query(
        `INSERT INTO ${quoted}.schema_migrations (version, description) VALUES ($1, $2)`,
        [step.version, step.description],
      );
      done.push(step.version);
    }
    return done.sort((left, right) => left - right);
  });
}

function toFailure(error: unknown): PostgresFailure {
  const fields = (error ?? {}) as {
    message?: unknown;
    code?: unknown;
    detail?: unknown;
    statementIndex?: unknown;
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
    statement: typeof fields.statementIndex === "number" ? fields.statementIndex : null,
  };
}

async function handle(request: PostgresRequest): Promise<PostgresResponse> {
  switch (request.kind) {
    case "open": {
      const connection: Connection = { spec: request.spec, client: null, tlsFallback: false };
      await connect(connection);
      const handleId = nextHandle++;
      connections.set(handleId, connection);
      return { ok: true, handle: handleId };
    }
    case "run": {
      const client = await connect(connectionOf(request.handle));
      const results = request.atomic
        ? await inTransaction(client, () => runStatements(client, request.statements))
        : await runStatements(client, request.statements);
      return { ok: true, results };
    }
    case "migrate": {
      const client = await connect(connectionOf(request.handle));
      return { ok: true, versions: await migrate(client, request) };
    }
    case "close": {
      const connection = connections.get(request.handle);
      connections.delete(request.handle);
      await connection?.client?.end().catch(() => {});
      return { ok: true };
    }
  }
}

runAsWorker(async (request: PostgresRequest): Promise<PostgresResponse> => {
  try {
    return await handle(request);
  } catch (error) {
    return { ok: false, failure: toFailure(error) };
  }
});
