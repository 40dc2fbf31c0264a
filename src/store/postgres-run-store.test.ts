import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { POSTGRES_TEST_PASSWORD } from "../../test/fixtures/postgres-cluster.ts";
import {
  createPostgresTestStore,
  postgresMissing,
  postgresSchemaUrl,
  postgresUrl,
  uniqueSchema,
} from "../../test/fixtures/postgres-test-store.ts";
import { StoreError } from "../errors/store-error.ts";
import { describeJudgeLeaseContract } from "./judge-lease-contract.ts";
import { PostgresRunStore } from "./postgres-run-store.ts";
import { POSTGRES_SCHEMA_VERSION } from "./postgres-schema.ts";
import type { CachedJudgeAnswer } from "./run-store.ts";
import { describeRunStoreContract, makeStoredRun } from "./run-store-contract.ts";

const answer: CachedJudgeAnswer = {
  text: null,
  object: { verdicts: [{ verdict: "no" }] },
  inputTokens: 10,
  outputTokens: 2,
  costUsd: 0.001,
};

describe.skipIf(postgresUrl === null)(`PostgresRunStore ${postgresMissing}`, () => {
  describeRunStoreContract({
    name: "PostgresRunStore",
    create: () => ({ store: createPostgresTestStore() }),
  });

  const opened: PostgresRunStore[] = [];
  const open = (options: Partial<ConstructorParameters<typeof PostgresRunStore>[0]> = {}) => {
    const store = createPostgresTestStore(options);
    opened.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
  });

  describe("connection", () => {
    const url = new URL(postgresUrl ?? "postgres://x");

    it("names where it is without the password", () => {
      const store = open();
      expect(store.target).toBe(
        `postgres://verdict@127.0.0.1:${url.port}/postgres (schema ${store.target.match(/schema (\w+)/)?.[1]})`,
      );
      expect(store.target).not.toContain(POSTGRES_TEST_PASSWORD);
    });

    it("says when the password is wrong, without printing it", () => {
      const wrong = `postgres://verdict:not-the-Pa55word@127.0.0.1:${url.port}/postgres`;
      const error = (() => {
        try {
          new PostgresRunStore({ url: wrong, env: {} });
        } catch (caught) {
          return caught as Error;
        }
      })();
      expect(error).toBeInstanceOf(StoreError);
      expect(error?.message).toMatch(/refused user "verdict".*check the user and the password/);
      expect(error?.message).not.toContain("not-the-Pa55word");
      expect(error?.message).toContain(`postgres://verdict@127.0.0.1:${url.port}/postgres`);
    });

    it("takes what the URL leaves out from PGPASSWORD, PGDATABASE and the other PG* variables", () => {
      const store = new PostgresRunStore({
        url: `postgres://127.0.0.1:${url.port}?schema=${uniqueSchema()}`,
        env: { PGUSER: "verdict", PGPASSWORD: POSTGRES_TEST_PASSWORD, PGDATABASE: "postgres" },
      });
      opened.push(store);
      store.startRun(makeStoredRun());
      expect(store.getRun("run-1")?.id).toBe("run-1");
    });

    it("says nothing answers at a port with no server, and where", () => {
      const closed = `postgres://verdict:${POSTGRES_TEST_PASSWORD}@127.0.0.1:1/postgres`;
      expect(() => new PostgresRunStore({ url: closed, env: {} })).toThrow(
        /nothing answers at 127\.0\.0\.1:1 .*check the host and port/,
      );
    });

    it("says which database is missing and how to create it", () => {
      const missing = `postgres://verdict:${POSTGRES_TEST_PASSWORD}@127.0.0.1:${url.port}/no_such_db`;
      expect(() => new PostgresRunStore({ url: missing, env: {} })).toThrow(
        /database "no_such_db" does not exist.*createdb no_such_db/,
      );
    });

    it("asks for TLS only when told: sslmode=require fails on a server without it, saying so", () => {
      expect(
        () => new PostgresRunStore({ url: `${postgresSchemaUrl()}&sslmode=require`, env: {} }),
      ).toThrow(/offers no TLS but sslmode is require.*sslmode=disable/);
      // The default (prefer, as libpq) falls back to a plain connection.
      expect(open().listRuns()).toEqual([]);
    });
  });

  describe("schema", () => {
    it("is created on first use and recorded in schema_migrations; opening again changes nothing", async () => {
      const schema = uniqueSchema();
      open({ url: postgresSchemaUrl(schema) });
      open({ url: postgresSchemaUrl(schema) });
      const client = new pg.Client({ connectionString: postgresUrl ?? "" });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT version FROM "${schema}".schema_migrations`);
        expect(rows.map((row) => row.version)).toEqual(
          Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => index + 1),
        );
      } finally {
        await client.end();
      }
    });

    it("with migrate: false, asks for verdict store migrate; PostgresRunStore.migrate applies it", () => {
      const url = postgresSchemaUrl();
      expect(() => new PostgresRunStore({ url, env: {}, migrate: false })).toThrow(
        /schema is at version 0, this verdict needs \d+: run verdict store migrate/,
      );
      const migrated = PostgresRunStore.migrate({ url, env: {} });
      expect(migrated).toMatchObject({ before: [], after: [1] });
      expect(migrated.target).not.toContain(POSTGRES_TEST_PASSWORD);
      expect(PostgresRunStore.migrate({ url, env: {} })).toMatchObject({ before: [1], after: [1] });
      open({ url, migrate: false }).startRun(makeStoredRun());
    });

    it("refuses a schema written by a newer verdict", async () => {
      const schema = uniqueSchema();
      open({ url: postgresSchemaUrl(schema) });
      const client = new pg.Client({ connectionString: postgresUrl ?? "" });
      await client.connect();
      try {
        await client.query(
          `INSERT INTO "${schema}".schema_migrations (version, description) VALUES (99, 'future')`,
        );
      } finally {
        await client.end();
      }
      expect(() => open({ url: postgresSchemaUrl(schema) })).toThrow(
        /written by a newer verdict \(schema 99.*upgrade verdict/,
      );
    });
  });

  describeJudgeLeaseContract({
    name: "PostgresRunStore",
    open: ({ leaseMs }) => {
      const url = postgresSchemaUrl();
      const options = { url, env: {}, ...(leaseMs === undefined ? {} : { leaseMs }) };
      return { first: new PostgresRunStore(options), second: new PostgresRunStore(options) };
    },
  });

  describe("judge cache", () => {
    it("keeps a judge's text exactly, control characters included", () => {
      const store = open();
      const text = 'nul \u0000, bell \u0007, lone \ud800 surrogate, "quotes"';
      store.judgeCache.set("text", { ...answer, text, object: undefined });
      expect(store.judgeCache.get("text")?.text).toBe(text);
    });
  });
});
