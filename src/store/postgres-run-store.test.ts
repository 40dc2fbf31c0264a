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
import {
  describeStoreContract,
  makeStoredRun,
  makeStoredTestResult,
} from "../testing/store-contract.ts";
import { describeJudgeLeaseContract, track } from "./judge-lease-contract.ts";
import { judgeKeyChannel } from "./postgres-key-listener.ts";
import { PostgresRunStore, type PostgresRunStoreOptions } from "./postgres-run-store.ts";
import { POSTGRES_SCHEMA_VERSION } from "./postgres-schema.ts";
import type { CachedJudgeAnswer } from "./run-store.ts";

const answer: CachedJudgeAnswer = {
  text: null,
  object: { verdicts: [{ verdict: "no" }] },
  inputTokens: 10,
  outputTokens: 2,
  costUsd: 0.001,
};

/** Runs `body` with a plain connection to the test server, as an administrator would. */
async function withServer<Result>(body: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({ connectionString: postgresUrl ?? "" });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe.skipIf(postgresUrl === null)(`PostgresRunStore ${postgresMissing}`, () => {
  describeStoreContract({
    name: "PostgresRunStore",
    create: async () => ({ store: await createPostgresTestStore() }),
  });

  const opened: PostgresRunStore[] = [];
  const open = async (options: Partial<PostgresRunStoreOptions> = {}) => {
    const store = await createPostgresTestStore(options);
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  describe("connection", () => {
    const url = new URL(postgresUrl ?? "postgres://x");

    it("names where it is without the password", async () => {
      const store = await open();
      expect(store.target).toBe(
        `postgres://verdict@127.0.0.1:${url.port}/postgres (schema ${store.target.match(/schema (\w+)/)?.[1]})`,
      );
      expect(store.target).not.toContain(POSTGRES_TEST_PASSWORD);
    });

    it("says when the password is wrong, without printing it", async () => {
      const wrong = `postgres://verdict:not-the-Pa55word@127.0.0.1:${url.port}/postgres`;
      const error = await PostgresRunStore.open({ url: wrong, env: {} }).then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
      expect(error).toBeInstanceOf(StoreError);
      expect(error?.message).toMatch(/refused user "verdict".*check the user and the password/);
      expect(error?.message).not.toContain("not-the-Pa55word");
      expect(error?.message).toContain(`postgres://verdict@127.0.0.1:${url.port}/postgres`);
    });

    it("takes what the URL leaves out from PGPASSWORD, PGDATABASE and the other PG* variables", async () => {
      const store = await PostgresRunStore.open({
        url: `postgres://127.0.0.1:${url.port}?schema=${uniqueSchema()}`,
        env: { PGUSER: "verdict", PGPASSWORD: POSTGRES_TEST_PASSWORD, PGDATABASE: "postgres" },
      });
      opened.push(store);
      await store.runs.startRun(makeStoredRun());
      expect((await store.runs.getRun("run-1"))?.id).toBe("run-1");
    });

    it("says nothing answers at a port with no server, and where", async () => {
      const closed = `postgres://verdict:${POSTGRES_TEST_PASSWORD}@127.0.0.1:1/postgres`;
      await expect(PostgresRunStore.open({ url: closed, env: {} })).rejects.toThrow(
        /nothing answers at 127\.0\.0\.1:1 .*check the host and port/,
      );
    });

    it("says which database is missing and how to create it", async () => {
      const missing = `postgres://verdict:${POSTGRES_TEST_PASSWORD}@127.0.0.1:${url.port}/no_such_db`;
      await expect(PostgresRunStore.open({ url: missing, env: {} })).rejects.toThrow(
        /database "no_such_db" does not exist.*createdb no_such_db/,
      );
    });

    it("asks for TLS only when told: sslmode=require fails on a server without it, saying so", async () => {
      await expect(
        PostgresRunStore.open({ url: `${postgresSchemaUrl()}&sslmode=require`, env: {} }),
      ).rejects.toThrow(/offers no TLS but sslmode is require.*sslmode=disable/);
      // The default (prefer, as libpq) falls back to a plain connection.
      expect(await (await open()).runs.listRuns()).toEqual([]);
    });

    it("runs calls made at the same time side by side, on several connections", async () => {
      const applicationName = `verdict_${uniqueSchema()}`;
      const store = await open({
        url: `${postgresSchemaUrl()}&application_name=${applicationName}`,
        maxConnections: 3,
      });
      // One connection would take the calls in turn; the pool opens more to take them together.
      await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          store.runs.startRun(makeStoredRun({ id: `run-${index}` })),
        ),
      );
      const { rows } = await withServer((client) =>
        client.query(
          "SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name = $1",
          [applicationName],
        ),
      );
      expect(rows[0]?.count).toBeGreaterThan(1);
      expect(rows[0]?.count).toBeLessThanOrEqual(3);
    });
  });

  describe("schema", () => {
    it("is created on first use and recorded in schema_migrations; opening again changes nothing", async () => {
      const schema = uniqueSchema();
      await open({ url: postgresSchemaUrl(schema) });
      await open({ url: postgresSchemaUrl(schema) });
      const { rows } = await withServer((client) =>
        client.query(`SELECT version FROM "${schema}".schema_migrations`),
      );
      expect(rows.map((row) => row.version)).toEqual(
        Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => index + 1),
      );
    });

    it("with migrate: false, asks for verdict store migrate; PostgresRunStore.migrate applies it", async () => {
      const url = postgresSchemaUrl();
      await expect(PostgresRunStore.open({ url, env: {}, migrate: false })).rejects.toThrow(
        /schema is at version 0, this verdict needs \d+: run verdict store migrate/,
      );
      const migrated = await PostgresRunStore.migrate({ url, env: {} });
      const every = Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => index + 1);
      expect(migrated).toMatchObject({ before: [], after: every });
      expect(migrated.target).not.toContain(POSTGRES_TEST_PASSWORD);
      expect(await PostgresRunStore.migrate({ url, env: {} })).toMatchObject({
        before: every,
        after: every,
      });
      await (await open({ url, migrate: false })).runs.startRun(makeStoredRun());
    });

    it("migrates a schema 1 judge cache: its answers read back without logprobs, new ones keep theirs", async () => {
      const schema = uniqueSchema();
      const answer = {
        text: "7",
        object: undefined,
        inputTokens: 1,
        outputTokens: 1,
        costUsd: null,
      };
      const writer = await open({ url: postgresSchemaUrl(schema) });
      await writer.judgeCache.set("before", answer);
      await writer.close();
      // Turn the schema back into what verdict wrote before it kept token log-probabilities.
      await withServer(async (client) => {
        await client.query(`ALTER TABLE "${schema}".judge_cache DROP COLUMN logprobs`);
        await client.query(`DELETE FROM "${schema}".schema_migrations WHERE version = 2`);
      });
      const reader = await open({ url: postgresSchemaUrl(schema) });
      expect(await reader.judgeCache.get("before")).toEqual(answer);
      expect(await reader.judgeCache.get("before")).not.toHaveProperty("logprobs");
      const logprobs = [
        { token: "7", logprob: -0.3, topLogprobs: [{ token: "8", logprob: -1.5 }] },
      ];
      await reader.judgeCache.set("after", { ...answer, logprobs });
      expect((await reader.judgeCache.get("after"))?.logprobs).toEqual(logprobs);
    });

    it("refuses a schema written by a newer verdict", async () => {
      const schema = uniqueSchema();
      await open({ url: postgresSchemaUrl(schema) });
      await withServer((client) =>
        client.query(
          `INSERT INTO "${schema}".schema_migrations (version, description) VALUES (99, 'future')`,
        ),
      );
      await expect(open({ url: postgresSchemaUrl(schema) })).rejects.toThrow(
        /written by a newer verdict \(schema 99.*upgrade verdict/,
      );
    });
  });

  describeJudgeLeaseContract({
    name: "PostgresRunStore",
    open: async ({ leaseMs }) => {
      const url = postgresSchemaUrl();
      const options = { url, env: {}, ...(leaseMs === undefined ? {} : { leaseMs }) };
      const [first, second] = await Promise.all([
        PostgresRunStore.open(options),
        PostgresRunStore.open(options),
      ]);
      return { first, second };
    },
  });

  describe("waiting for a judge answer (LISTEN/NOTIFY)", () => {
    /** The backends that LISTEN on the channel of the schema of `url`. */
    const listeningBackends = async (url: string) => {
      const channel = judgeKeyChannel(new URL(url).searchParams.get("schema") ?? "");
      const { rows } = await withServer((client) =>
        client.query("SELECT pid FROM pg_stat_activity WHERE query = $1", [`LISTEN "${channel}"`]),
      );
      return rows.map((row) => Number(row.pid));
    };

    /** Two stores over one schema; the second one's listener running (its first wait returns once it listens). */
    const twoStores = async () => {
      const url = postgresSchemaUrl();
      const first = await open({ url });
      const second = await open({ url });
      await second.leases.waitForKey("warm-up", { timeoutMs: 5000 });
      return { url, first, second };
    };

    it("wakes a waiter as soon as another store sets the key, long before its timeout", async () => {
      const { first, second } = await twoStores();
      const waiting = track(second.leases.waitForKey("key", { timeoutMs: 20_000 }));
      await sleep(150);
      expect(waiting.settled).toBe(false);
      await first.judgeCache.set("key", answer);
      await expect.poll(() => waiting.settled).toBe(true);
      expect(waiting.error).toBeUndefined();
    });

    it("wakes a waiter when the lease's holder lets it go, not when a stranger tries to", async () => {
      const { first, second } = await twoStores();
      expect(await first.leases.tryClaim("key", "holder-a", 30_000)).toEqual({ leased: true });
      const waiting = track(second.leases.waitForKey("key", { timeoutMs: 20_000 }));
      await first.leases.release("key", "holder-b");
      await sleep(150);
      expect(waiting.settled).toBe(false);
      await first.leases.release("key", "holder-a");
      await expect.poll(() => waiting.settled).toBe(true);
    });

    it("is not woken by the same key in another schema", async () => {
      const { second } = await twoStores();
      const elsewhere = await open();
      const waiting = track(second.leases.waitForKey("key", { timeoutMs: 20_000 }));
      await elsewhere.judgeCache.set("key", answer);
      await sleep(300);
      expect(waiting.settled).toBe(false);
      await second.close();
      await expect.poll(() => waiting.settled).toBe(true);
    });

    it("resolves at its timeout when nothing comes", async () => {
      const { second } = await twoStores();
      await expect(second.leases.waitForKey("key", { timeoutMs: 100 })).resolves.toBeUndefined();
    });

    it("rejects with the signal's reason when it aborts, or was aborted already", async () => {
      const { second } = await twoStores();
      const controller = new AbortController();
      const waiting = second.leases.waitForKey("key", {
        timeoutMs: 20_000,
        signal: controller.signal,
      });
      controller.abort(new Error("run cancelled"));
      await expect(waiting).rejects.toThrow("run cancelled");
      await expect(
        second.leases.waitForKey("key", { timeoutMs: 20_000, signal: controller.signal }),
      ).rejects.toThrow("run cancelled");
    });

    it("falls back to the timeout when its connection breaks, and listens again on the next wait", async () => {
      const { url, first, second } = await twoStores();
      const listening = () => listeningBackends(url);
      const [lost] = await listening();
      await withServer((client) => client.query("SELECT pg_terminate_backend($1)", [lost]));
      // Waits go on meanwhile, each ending at its timeout (or as the listener starts again).
      await expect
        .poll(
          async () => {
            await second.leases.waitForKey("warm-up", { timeoutMs: 100 });
            return (await listening()).filter((pid) => pid !== lost).length;
          },
          { timeout: 5000 },
        )
        .toBe(1);
      const waiting = track(second.leases.waitForKey("key", { timeoutMs: 20_000 }));
      await sleep(100);
      expect(waiting.settled).toBe(false);
      await first.judgeCache.set("key", answer);
      await expect.poll(() => waiting.settled).toBe(true);
    });

    it("listens again by itself while a waiter waits, when its connection is terminated", async () => {
      const { url, first, second } = await twoStores();
      const listening = () => listeningBackends(url);
      const waiting = track(second.leases.waitForKey("key", { timeoutMs: 20_000 }));
      const [lost] = await listening();
      await withServer((client) => client.query("SELECT pg_terminate_backend($1)", [lost]));
      // No other wait starts it: the listener comes back on its own, and the waiter, who may
      // have missed a notice meanwhile, is woken to look again.
      await expect
        .poll(async () => (await listening()).filter((pid) => pid !== lost).length, {
          timeout: 5000,
        })
        .toBe(1);
      await expect.poll(() => waiting.settled).toBe(true);
      const next = track(second.leases.waitForKey("key", { timeoutMs: 20_000 }));
      await sleep(100);
      expect(next.settled).toBe(false);
      await first.judgeCache.set("key", answer);
      await expect.poll(() => next.settled).toBe(true);
    });
  });

  describe("judge cache claims", () => {
    /** What `operation` resolved to, and how many round trips to the server it took. */
    const roundTrips = async (store: PostgresRunStore, operation: () => Promise<unknown>) => {
      const before = store.timing.calls;
      const result = await operation();
      return { result, roundTrips: store.timing.calls - before };
    };

    it("take one round trip each, and none to release a lease its answer ended", async () => {
      const store = await open();
      await store.judgeCache.set("cached", answer);
      expect(await roundTrips(store, () => store.leases.tryClaim("cached", "a", 30_000))).toEqual({
        result: { answer },
        roundTrips: 1,
      });
      expect(await roundTrips(store, () => store.leases.tryClaim("free", "a", 30_000))).toEqual({
        result: { leased: true },
        roundTrips: 1,
      });
      // Who holds it comes in the same round trip.
      expect(await roundTrips(store, () => store.leases.tryClaim("free", "b", 30_000))).toEqual({
        result: { leased: false, holder: "a" },
        roundTrips: 1,
      });
      await store.judgeCache.set("free", answer);
      expect(await roundTrips(store, () => store.leases.release("free", "a"))).toEqual({
        result: undefined,
        roundTrips: 0,
      });
      // A lease let go without an answer is deleted (and its waiters told).
      await store.leases.tryClaim("failed", "a", 30_000);
      expect((await roundTrips(store, () => store.leases.release("failed", "a"))).roundTrips).toBe(
        1,
      );
      expect(await store.leases.tryClaim("failed", "b", 30_000)).toEqual({ leased: true });
      // Keys travel as SQL text, which a NUL would cut short.
      await expect(store.leases.tryClaim("bad\u0000key", "a", 30_000)).rejects.toThrow(
        /may not hold the NUL character/,
      );
    });

    it("give the lease back, with the answer, when the answer landed just as the lease was taken", async () => {
      const schema = uniqueSchema();
      const store = await open({ url: postgresSchemaUrl(schema) });
      const key = `crossing-${uniqueSchema()}`;
      await store.leases.tryClaim(key, "former", 30_000);
      // The former holder writes its answer, ending its lease, in a transaction that commits
      // only once the next claim has read the cache (no answer yet) and waits for that lease.
      const former = new pg.Client({ connectionString: postgresUrl ?? "" });
      await former.connect();
      try {
        await former.query("BEGIN");
        await former.query(`DELETE FROM "${schema}".judge_leases WHERE key = $1`, [key]);
        await former.query(
          `INSERT INTO "${schema}".judge_cache (key, text, object, input_tokens, output_tokens, cost_usd, created_at)
           VALUES ($1, NULL, $2, 10, 2, 0.001, '2025-01-01T00:00:00.000Z')`,
          [key, JSON.stringify(answer.object)],
        );
        const claiming = store.leases.tryClaim(key, "next", 30_000);
        await expect
          .poll(async () => {
            const { rows } = await withServer((client) =>
              client.query(
                "SELECT count(*)::int AS count FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
                [`%${key}%`],
              ),
            );
            return rows[0]?.count;
          })
          .toBe(1);
        await former.query("COMMIT");
        expect(await claiming).toEqual({ answer });
      } finally {
        await former.end();
      }
      const { rows } = await withServer((client) =>
        client.query(`SELECT holder FROM "${schema}".judge_leases WHERE key = $1`, [key]),
      );
      expect(rows).toEqual([]);
    });

    it("answer a waiter's next look from the notice that woke it, without a round trip", async () => {
      const url = postgresSchemaUrl();
      const first = await open({ url });
      const second = await open({ url });
      await second.leases.waitForKey("warm-up", { timeoutMs: 5000 });
      expect(await second.leases.tryClaim("key", "holder", 30_000)).toEqual({ leased: true });
      const woken = second.leases.waitForKey("key", { timeoutMs: 20_000 });
      await first.judgeCache.set("key", answer);
      await woken;
      expect(
        await roundTrips(second, () => second.leases.tryClaim("key", "waiter", 30_000)),
      ).toEqual({ result: { answer }, roundTrips: 0 });
      // Taken once: a later look reads the store.
      expect(
        await roundTrips(second, () => second.leases.tryClaim("key", "later", 30_000)),
      ).toEqual({ result: { answer }, roundTrips: 1 });
    });
  });

  describe("test results", () => {
    it("reads a run's results a page at a time: after an index, at most a limit", async () => {
      const store = await open();
      await store.runs.startRun(makeStoredRun());
      for (const index of [4, 0, 2, 1, 3]) {
        await store.runs.saveTestResult("run-1", makeStoredTestResult(index));
      }
      const indices = async (options: { afterIndex?: number; limit?: number }) =>
        (await store.runs.getTestResults("run-1", options)).map((stored) => stored.result.index);
      expect(await indices({ limit: 2 })).toEqual([0, 1]);
      expect(await indices({ afterIndex: 1, limit: 2 })).toEqual([2, 3]);
      expect(await indices({ afterIndex: 3 })).toEqual([4]);
      expect(await indices({ afterIndex: 4, limit: 2 })).toEqual([]);
      expect(await indices({ limit: 0 })).toEqual([]);
      const { version } = await store.runs.getTestResultsVersion("run-1");
      await store.runs.saveTestResult("run-1", makeStoredTestResult(1));
      await store.runs.saveTestResult("run-1", makeStoredTestResult(3));
      const changed = await store.runs.getTestResults("run-1", {
        changedAfter: version,
        afterIndex: 1,
        limit: 5,
      });
      expect(changed.map((stored) => stored.result.index)).toEqual([3]);
      await expect(store.runs.getTestResults("run-1", { limit: -1 })).rejects.toThrow(
        /limit must be a non-negative integer/,
      );
      await expect(store.runs.getTestResults("run-1", { afterIndex: 0.5 })).rejects.toThrow(
        StoreError,
      );
    });

    it("saves results given at the same time in a few statements, none lost, versions in order", async () => {
      const store = await open();
      await store.runs.startRun(makeStoredRun());
      await store.runs.startRun(makeStoredRun({ id: "run-2" }));
      const before = store.timing.calls;
      const saving = Array.from({ length: 40 }, (_, index) =>
        store.runs.saveTestResult(index % 2 === 0 ? "run-1" : "run-2", makeStoredTestResult(index)),
      );
      // Saved again while the first saves are still waiting: the later save wins.
      saving.push(
        store.runs.saveTestResult("run-1", makeStoredTestResult(0, { name: "saved again" })),
      );
      await Promise.all(saving);
      expect(store.timing.calls - before).toBeLessThan(20);
      expect(await store.runs.getTestResultsVersion("run-1")).toEqual({ count: 20, version: 21 });
      expect(await store.runs.getTestResultsVersion("run-2")).toEqual({ count: 20, version: 20 });
      const [first] = await store.runs.getTestResults("run-1", { limit: 1 });
      expect(first?.result.name).toBe("saved again");
      // The resaved result has the run's last version: a reader that had read up to 20 sees it.
      expect(
        (await store.runs.getTestResults("run-1", { changedAfter: 20 })).map(
          (stored) => stored.result.name,
        ),
      ).toEqual(["saved again"]);
    });

    it("fails only the save of an unknown run among saves made at the same time", async () => {
      const store = await open();
      await store.runs.startRun(makeStoredRun());
      const saved = await Promise.allSettled([
        ...Array.from({ length: 5 }, (_, index) =>
          store.runs.saveTestResult("run-1", makeStoredTestResult(index)),
        ),
        store.runs.saveTestResult("no-such-run", makeStoredTestResult(0)),
      ]);
      expect(saved.map((outcome) => outcome.status)).toEqual([
        ...Array(5).fill("fulfilled"),
        "rejected",
      ]);
      expect((saved[5] as PromiseRejectedResult).reason).toBeInstanceOf(StoreError);
      expect(String((saved[5] as PromiseRejectedResult).reason)).toMatch(
        /there is no run with this id/,
      );
    });
  });

  describe("judge cache and claims made at the same time", () => {
    it("give each claim what it would get alone: one lease per key, the cached answers", async () => {
      const store = await open();
      for (let key = 0; key < 5; key++) await store.judgeCache.set(`cached-${key}`, answer);
      const before = store.timing.calls;
      const keys = Array.from({ length: 60 }, (_, call) =>
        call % 2 === 0 ? `cached-${call % 5}` : `free-${call % 10}`,
      );
      const claims = await Promise.all(
        keys.map((key, call) => store.leases.tryClaim(key, `holder-${call}`, 30_000)),
      );
      expect(store.timing.calls - before).toBeLessThan(30);
      keys.forEach((key, call) => {
        if (key.startsWith("cached")) expect(claims[call]).toEqual({ answer });
      });
      for (let key = 1; key < 10; key += 2) {
        const outcomes = keys.flatMap((asked, call) =>
          asked === `free-${key}` ? [claims[call]] : [],
        );
        expect(
          outcomes.filter((claim) => claim !== undefined && "leased" in claim && claim.leased),
        ).toHaveLength(1);
        expect(
          outcomes.filter((claim) => claim !== undefined && "leased" in claim && !claim.leased),
        ).toHaveLength(outcomes.length - 1);
      }
    });

    it("write answers given at the same time in a few statements, and fail only one the server refuses", async () => {
      const store = await open();
      const before = store.timing.calls;
      await Promise.all(
        Array.from({ length: 30 }, (_, key) =>
          store.judgeCache.set(`key-${key}`, { ...answer, inputTokens: key }),
        ),
      );
      expect(store.timing.calls - before).toBeLessThan(30);
      for (let key = 0; key < 30; key++) {
        expect((await store.judgeCache.get(`key-${key}`))?.inputTokens).toBe(key);
      }
      const written = await Promise.allSettled([
        ...Array.from({ length: 5 }, (_, key) => store.judgeCache.set(`more-${key}`, answer)),
        // PostgreSQL's text holds no NUL: the server refuses this key (and the batch it is in,
        // whose calls then run alone).
        store.judgeCache.set("bad\u0000key", answer),
      ]);
      expect(written.map((outcome) => outcome.status)).toEqual([
        ...Array(5).fill("fulfilled"),
        "rejected",
      ]);
      expect((written[5] as PromiseRejectedResult).reason).toBeInstanceOf(StoreError);
      expect(await store.judgeCache.get("more-4")).toEqual(answer);
    });
  });

  describe("judge cache", () => {
    it("keeps a judge's text exactly, control characters included", async () => {
      const store = await open();
      const text = 'nul \u0000, bell \u0007, lone \ud800 surrogate, "quotes"';
      await store.judgeCache.set("text", { ...answer, text, object: undefined });
      expect((await store.judgeCache.get("text"))?.text).toBe(text);
    });
  });
});
