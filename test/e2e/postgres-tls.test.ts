// TLS to a team's PostgreSQL store, against a real server with a self-signed certificate:
// libpq's sslmode values, the certificate file given in the URL, PGSSLMODE, and TLS options
// given in code passed through to the driver. A whole-program test: it starts its own server.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePostgresConnection } from "../../src/store/postgres-connection.ts";
import { PostgresPool } from "../../src/store/postgres-pool.ts";
import { PostgresRunStore } from "../../src/store/postgres-run-store.ts";
import {
  findPostgresBinaries,
  type PostgresCluster,
  startPostgresCluster,
} from "../fixtures/postgres-cluster.ts";
import { postgresMissing } from "../fixtures/postgres-test-store.ts";
import { runNode } from "./run-node.ts";

// The certificate is made with the openssl program (Debian's postgresql package brings it).
const installed = findPostgresBinaries() !== null && spawnSync("openssl", ["version"]).status === 0;
const missing = installed
  ? ""
  : postgresMissing || "(skipped: the openssl program is not installed)";

describe.skipIf(!installed && !process.env.CI)(`a PostgreSQL store over TLS ${missing}`, () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await startPostgresCluster({ tls: true, maxConnections: 20 });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  /** The URL of the TLS server with `parameters` added, in a schema of its own. */
  const url = (parameters: string, host = "127.0.0.1") =>
    `${cluster.url.replace("127.0.0.1", host)}?schema=tls_${Math.random().toString(36).slice(2, 10)}${parameters}`;

  /** Whether a connection made with these settings is encrypted, read from the server. */
  async function encrypted(options: {
    url: string;
    env?: NodeJS.ProcessEnv;
    ssl?: Record<string, unknown>;
  }) {
    const pool = await PostgresPool.connect(
      resolvePostgresConnection({ url: options.url, env: options.env ?? {}, ssl: options.ssl }),
      { maxConnections: 1 },
    );
    try {
      const [result] = await pool.run([
        { text: "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()" },
      ]);
      return result?.rows[0]?.ssl;
    } finally {
      await pool.close();
    }
  }

  it("encrypts with sslmode=require, and with the default (prefer) when the server offers TLS", async () => {
    expect(await encrypted({ url: url("&sslmode=require") })).toBe(true);
    expect(await encrypted({ url: url("") })).toBe(true);
  });

  it("connects in plain text when sslmode (or PGSSLMODE) is disable", async () => {
    expect(await encrypted({ url: url("&sslmode=disable") })).toBe(false);
    expect(await encrypted({ url: url(""), env: { PGSSLMODE: "disable" } })).toBe(false);
  });

  it("refuses an untrusted certificate with verify-full, saying how to trust it", async () => {
    await expect(
      PostgresRunStore.open({ url: url("&sslmode=verify-full"), env: {} }),
    ).rejects.toThrow(/certificate is not trusted.*sslrootcert=FILE/);
  });

  it("trusts the certificate named by sslrootcert or PGSSLROOTCERT, and checks the host name", async () => {
    const file = cluster.certificate ?? "";
    expect(
      await encrypted({ url: url(`&sslmode=verify-full&sslrootcert=${file}`, "localhost") }),
    ).toBe(true);
    expect(
      await encrypted({
        url: url("", "localhost"),
        env: { PGSSLMODE: "verify-full", PGSSLROOTCERT: file },
      }),
    ).toBe(true);
    // The certificate names localhost, not 127.0.0.1: verify-full refuses, verify-ca (the CA
    // only) accepts.
    await expect(
      PostgresRunStore.open({ url: url(`&sslmode=verify-full&sslrootcert=${file}`), env: {} }),
    ).rejects.toThrow(/certificate is not trusted/);
    expect(await encrypted({ url: url(`&sslmode=verify-ca&sslrootcert=${file}`) })).toBe(true);
  });

  it("says which certificate file it cannot read", async () => {
    await expect(
      PostgresRunStore.open({
        url: url("&sslmode=verify-full&sslrootcert=/no/such/ca.pem"),
        env: {},
      }),
    ).rejects.toThrow(
      /cannot read the root certificate \(sslrootcert\) \/no\/such\/ca\.pem \(ENOENT\).*check sslrootcert/,
    );
  });

  it("passes TLS options given in code on to the driver, checking the certificate as pg does", async () => {
    const ca = readFileSync(cluster.certificate ?? "", "utf8");
    // TLS options without an sslmode mean verify-full: 127.0.0.1 is not the certificate's name.
    await expect(PostgresRunStore.open({ url: url(""), env: {}, ssl: { ca } })).rejects.toThrow(
      /certificate is not trusted/,
    );
    expect(await encrypted({ url: url("&sslmode=verify-full", "localhost"), ssl: { ca } })).toBe(
      true,
    );
    await using store = await PostgresRunStore.open({
      url: url("", "localhost"),
      env: {},
      ssl: { ca },
    });
    expect(await store.runs.listRuns()).toEqual([]);
  });

  it("waits for judge answers over TLS too (its listening connection encrypted)", async () => {
    const ca = readFileSync(cluster.certificate ?? "", "utf8");
    const shared = url("&sslmode=verify-full", "localhost");
    await using first = await PostgresRunStore.open({ url: shared, env: {}, ssl: { ca } });
    await using second = await PostgresRunStore.open({ url: shared, env: {}, ssl: { ca } });
    // The first wait returns once the listening connection is up.
    await second.leases.waitForKey("warm-up", { timeoutMs: 5000 });
    const woken = second.leases.waitForKey("key", { timeoutMs: 20_000 });
    const answer = { text: "no", object: undefined, inputTokens: 1, outputTokens: 1, costUsd: 0 };
    await first.judgeCache.set("key", answer);
    const later = new Promise((resolve) => setTimeout(resolve, 3000, "not woken"));
    expect(await Promise.race([woken.then(() => "woken"), later])).toBe("woken");
  });

  it("lets a process that waited for an answer close the store and end, or end without closing it", async () => {
    const shared = url(
      `&sslmode=verify-full&sslrootcert=${cluster.certificate ?? ""}`,
      "localhost",
    );
    const moduleUrl = new URL("../../src/store/postgres-run-store.ts", import.meta.url).href;
    // Its connections are unref'd while idle (a store left open must not hang a CLI), so
    // closing must hold the process until they are closed.
    const script = (close: boolean) => `
      const { PostgresRunStore } = await import(${JSON.stringify(moduleUrl)});
      const store = await PostgresRunStore.open({ url: ${JSON.stringify(shared)} });
      await store.runs.listRuns();
      await store.leases.waitForKey("warm-up", { timeoutMs: 5000 });
      ${close ? 'await store.close(); console.log("closed");' : 'console.log("left open");'}`;
    const [closed, leftOpen] = await Promise.all(
      [true, false].map(
        (close) =>
          runNode({
            args: ["--input-type=module", "-e", script(close)],
            env: { PATH: process.env.PATH },
          }).finished,
      ),
    );
    expect(closed).toEqual({ code: 0, stdout: "closed\n", stderr: "" });
    expect(leftOpen).toEqual({ code: 0, stdout: "left open\n", stderr: "" });
  });
});
