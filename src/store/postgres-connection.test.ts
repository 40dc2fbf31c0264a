import { describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import { isPostgresUrl, resolvePostgresConnection } from "./postgres-connection.ts";

const resolve = (url: string, env: NodeJS.ProcessEnv = {}, extra = {}) =>
  resolvePostgresConnection({ url, env, ...extra });

describe("isPostgresUrl", () => {
  it.each(["postgres://h/db", "postgresql://u@h", "  POSTGRES://h"])("accepts %s", (url) =>
    expect(isPostgresUrl(url)).toBe(true),
  );
  it.each([".verdict/verdict.db", "mysql://h/db", "postgres:h", ""])("refuses %s", (url) =>
    expect(isPostgresUrl(url)).toBe(false),
  );
});

describe("resolvePostgresConnection", () => {
  it("reads every part of the URL, decoding it", () => {
    const { spec, schema, target } = resolve(
      "postgresql://team%40corp:p%40ss%2Fword@db.internal:6543/evals%20db?sslmode=verify-full&sslrootcert=/etc/ca.pem&schema=nightly&application_name=ci",
    );
    expect(spec).toMatchObject({
      host: "db.internal",
      port: 6543,
      user: "team@corp",
      password: "p@ss/word",
      database: "evals db",
      sslMode: "verify-full",
      sslRootCert: "/etc/ca.pem",
      applicationName: "ci",
    });
    expect(schema).toBe("nightly");
    expect(target).toBe("postgres://team%40corp@db.internal:6543/evals%20db (schema nightly)");
    expect(target).not.toContain("word");
  });

  it("takes what the URL leaves out from the PG* variables, as libpq does", () => {
    const { spec, schema } = resolve("postgres://", {
      PGHOST: "pg.local",
      PGPORT: "5433",
      PGUSER: "ci",
      PGPASSWORD: "from-env-secret",
      PGDATABASE: "evals",
      PGSSLMODE: "require",
      PGSSLROOTCERT: "/ca.pem",
      PGAPPNAME: "nightly-evals",
      PGCONNECT_TIMEOUT: "7",
    });
    expect(spec).toMatchObject({
      host: "pg.local",
      port: 5433,
      user: "ci",
      password: "from-env-secret",
      database: "evals",
      sslMode: "require",
      sslRootCert: "/ca.pem",
      applicationName: "nightly-evals",
      connectTimeoutMs: 7000,
    });
    expect(schema).toBe("verdict");
  });

  it("lets the URL win over the variables, and defaults like libpq", () => {
    const { spec } = resolve("postgres://url-user@url-host/url-db", {
      PGHOST: "env-host",
      PGUSER: "env-user",
      PGDATABASE: "env-db",
    });
    expect(spec).toMatchObject({
      host: "url-host",
      port: 5432,
      user: "url-user",
      password: null,
      database: "url-db",
      sslMode: "prefer",
    });
    expect(resolve("postgres://u@h").spec.database).toBe("u");
  });

  it("passes TLS options given in code on, checking the certificate as pg does", () => {
    const { spec } = resolve("postgres://h/db", {}, { ssl: { servername: "db.example" } });
    expect(spec).toMatchObject({ sslMode: "verify-full", ssl: { servername: "db.example" } });
    expect(resolve("postgres://h/db", {}, { ssl: false }).spec.sslMode).toBe("disable");
    expect(resolve("postgres://h/db?sslmode=require", {}, { ssl: true }).spec.sslMode).toBe(
      "require",
    );
  });

  it.each([
    ["not a URL", "postgres://[", /is not a URL/],
    ["another scheme", "mysql://h/db", /must start with postgres:\/\//],
    ["a bad port", "postgres://h:0/db", /port "0" is not a port number/],
    ["an unknown sslmode", "postgres://h/db?sslmode=always", /sslmode "always" is not one of/],
    ["a bad schema name", "postgres://h/db?schema=Robert'); DROP", /must be a lower-case SQL name/],
    [
      "an unknown parameter",
      "postgres://h/db?pool_size=4",
      /does not know the parameter "pool_size"/,
    ],
  ])("refuses %s with a StoreError that shows the right form", (_what, url, message) => {
    expect(() => resolve(url)).toThrow(StoreError);
    expect(() => resolve(url)).toThrow(message);
    expect(() => resolve(url)).toThrow(/Write it as postgres:\/\/USER/);
  });

  it("never shows the password of a URL it refuses", () => {
    expect(() => resolve("postgres://u:hunter2-secret@h:0/db")).toThrow(
      /postgres:\/\/u:\*\*\*@h:0\/db/,
    );
    expect(() => resolve("postgres://u:hunter2-secret@h:0/db")).not.toThrow(/hunter2/);
  });
});

describe("how long calls retry a lost connection", () => {
  it("is 60 s unless the options or the URL's retry_for_ms say otherwise (the URL wins)", () => {
    expect(resolve("postgres://h/db").spec.retryForMs).toBe(60_000);
    expect(resolve("postgres://h/db", {}, { retryForMs: 5000 }).spec.retryForMs).toBe(5000);
    expect(
      resolve("postgres://h/db?retry_for_ms=120000", {}, { retryForMs: 5000 }).spec.retryForMs,
    ).toBe(120_000);
    expect(resolve("postgres://h/db?retry_for_ms=0").spec.retryForMs).toBe(0);
  });

  it("refuses a value that is not a whole number of milliseconds, saying which", () => {
    expect(() => resolve("postgres://h/db?retry_for_ms=10s")).toThrow(
      /retry_for_ms "10s" is not a whole number of milliseconds/,
    );
    expect(() => resolve("postgres://h/db", {}, { retryForMs: -1 })).toThrow(StoreError);
  });
});
