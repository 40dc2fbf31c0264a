import { readFile } from "node:fs/promises";
import type { ConnectionOptions } from "node:tls";
import type { ClientConfig } from "pg";
import type { PostgresConnectionSpec } from "./postgres-connection.ts";

async function readCertificate(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw Object.assign(
      new Error(`cannot read the ${what} ${file} (${(error as NodeJS.ErrnoException).code})`),
      { code: "VERDICT_TLS_FILE" },
    );
  }
}

/** pg's `ssl` from libpq's sslmode and files, with the options given in code laid over. */
async function tlsOptions(
  spec: PostgresConnectionSpec,
  fallback: boolean,
): Promise<ClientConfig["ssl"]> {
  const mode = spec.sslMode;
  if (mode === "disable" || mode === "allow" || fallback) return false;
  const options: ConnectionOptions = {};
  const rootCert = spec.sslRootCert;
  if (rootCert !== null && rootCert !== "system") {
    options.ca = await readCertificate(rootCert, "root certificate (sslrootcert)");
  }
  if (spec.sslCert !== null) {
    options.cert = await readCertificate(spec.sslCert, "client certificate");
  }
  if (spec.sslKey !== null) options.key = await readCertificate(spec.sslKey, "client key");
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

/**
 * The `pg` settings of one connection to a resolved server: TLS as sslmode says (its
 * certificate files read here; `tlsFallback`: the server has no TLS and sslmode=prefer lets
 * that pass), the connect and statement timeouts, and a wait limit on a server gone silent.
 */
export async function postgresClientConfig(
  spec: PostgresConnectionSpec,
  options: { tlsFallback: boolean },
): Promise<ClientConfig> {
  return {
    host: spec.host,
    port: spec.port,
    user: spec.user,
    database: spec.database,
    application_name: spec.applicationName,
    ssl: await tlsOptions(spec, options.tlsFallback),
    connectionTimeoutMillis: spec.connectTimeoutMs,
    statement_timeout: spec.statementTimeoutMs,
    // The server's timeout ends a long statement; this one ends a wait on a server that went
    // silent (a lost network), so that no call waits for ever.
    query_timeout: spec.statementTimeoutMs + 10_000,
    keepAlive: true,
    ...(spec.password === null ? {} : { password: spec.password }),
    ...(spec.options === null ? {} : { options: spec.options }),
  };
}
