// A team's PostgreSQL store shared by processes that stand for machines (each with its own
// VERDICT_HOME): the judge cache paid once across them, shards writing one run that the CLI
// reads whole, a writer killed mid-run, the first use by many processes at once, and copies
// between a laptop's SQLite store and the team's. Whole-program runs: child processes, the
// fake OpenAI server over HTTP, the throw-away PostgreSQL server of the test setup.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../../src/store/postgres-run-store.ts";
import { POSTGRES_SCHEMA_VERSION } from "../../src/store/postgres-schema.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { POSTGRES_TEST_PASSWORD } from "../fixtures/postgres-cluster.ts";
import {
  postgresMissing,
  postgresSchemaUrl,
  postgresUrl,
  uniqueSchema,
} from "../fixtures/postgres-test-store.ts";
import { runNode } from "./run-node.ts";

const child = "test/e2e/fixtures/evaluate-into-store.ts";

interface ChildSummary {
  runId: string;
  status: string;
  cases: number;
  judgeCalls: number;
  cacheHits: number;
  sharedCalls: number;
}

describe.skipIf(postgresUrl === null)(`a team's PostgreSQL store ${postgresMissing}`, () => {
  let server: FakeOpenAIServer;
  const folders: string[] = [];
  const home = () => {
    const folder = mkdtempSync(path.join(tmpdir(), "verdict-machine-"));
    folders.push(folder);
    return folder;
  };
  const machineEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: "sk-fake-key-for-tests",
    VERDICT_HOME: home(),
    ...extra,
  });
  const evaluateOn = async (env: NodeJS.ProcessEnv) => {
    const run = await runNode({ args: [child], env: machineEnv(env) }).finished;
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as ChildSummary;
  };
  const cli = (args: string[], env: NodeJS.ProcessEnv) =>
    runNode({ args: ["src/cli/main.ts", ...args], env: machineEnv(env) }).finished;

  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    server.setLatency(0);
  });
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it("pays once for requests two machines ask at the same time, and not again the next run", async () => {
    // What the suite asks, alone in a store of its own.
    const alone = await evaluateOn({ STORE_URL: postgresSchemaUrl(), CASES: "12" });
    const distinct = server.stats().byEndpoint.responses ?? 0;
    expect(alone.judgeCalls).toBe(distinct);
    expect(distinct).toBeGreaterThan(0);

    server.reset();
    server.setLatency(60);
    const url = postgresSchemaUrl();
    const both: [ChildSummary, ChildSummary] = await Promise.all([
      evaluateOn({ STORE_URL: url, CASES: "12" }),
      evaluateOn({ STORE_URL: url, CASES: "12" }),
    ]);
    expect(server.stats().byEndpoint.responses).toBe(distinct);
    expect(both[0].judgeCalls + both[1].judgeCalls).toBe(distinct);
    // Every request either process asked was paid once, or answered from the cache (the
    // other machine's answer) or from a call it already had in flight.
    const asked = (run: ChildSummary) => run.judgeCalls + run.cacheHits + run.sharedCalls;
    expect(asked(both[0]) + asked(both[1])).toBe(2 * asked(alone));

    server.reset();
    const again = await evaluateOn({ STORE_URL: url, CASES: "12" });
    expect(again).toMatchObject({ judgeCalls: 0, status: "completed" });
    expect(asked(again)).toBe(asked(alone));
    expect(server.stats().requests).toBe(0);
  });

  it("lets shards on two machines write one run that merge, compare and view read whole", async () => {
    const url = postgresSchemaUrl();
    const shards = await Promise.all(
      ["1/2", "2/2"].map((shard) =>
        evaluateOn({ STORE_URL: url, CASES: "10", SHARD: shard, VERDICT_RUN_GROUP: "build-41" }),
      ),
    );
    expect(shards.map((shard) => shard.cases)).toEqual([5, 5]);
    expect(shards[0]?.runId).toBe(shards[1]?.runId);

    const store = await PostgresRunStore.open({ url, env: {} });
    const run = await store.runs.getRun("team-nightly");
    expect(run?.status).toBe("completed");
    expect(run?.shards?.parts.map((part) => part.status)).toEqual(["completed", "completed"]);
    expect(run?.summary?.testCases.total).toBe(10);
    const stored = await store.runs.getTestResults(run?.id ?? "");
    expect(stored.map((entry) => entry.result.index)).toEqual(
      Array.from({ length: 10 }, (_, index) => index),
    );
    await store.close();

    const env = { VERDICT_STORE: url };
    const report = path.join(home(), "merged.json");
    const merged = await cli(["merge", "--run", "team-nightly", "--output", `json=${report}`], env);
    expect(merged.stderr).toBe("");
    const written = JSON.parse(readFileSync(report, "utf8")) as { testResults: unknown[] };
    expect(written.testResults).toHaveLength(10);
    expect(merged.stdout).toContain("Merged run team-nightly from postgres://verdict@127.0.0.1:");
    expect(merged.stdout).toContain("2 shards of 2, 10 test cases.");
    const compared = await cli(["compare", "team-nightly", run?.id ?? ""], env);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toContain("team-nightly");

    const viewer = runNode({
      args: ["src/cli/main.ts", "view", "--port", "0"],
      env: machineEnv(env),
    });
    try {
      await expect.poll(() => viewer.output().stdout, { timeout: 20_000 }).toContain("http://");
      const address = /http:\/\/127\.0\.0\.1:\d+/.exec(viewer.output().stdout)?.[0];
      expect(viewer.output().stdout).not.toContain(POSTGRES_TEST_PASSWORD);
      const listed = (await (await fetch(`${address}/api/runs`)).json()) as {
        runs: Array<{ id: string; cases: { total: number; passed: number }; shard: string | null }>;
      };
      expect(listed.runs).toHaveLength(1);
      expect(listed.runs[0]).toMatchObject({ id: run?.id, cases: { total: 10 }, shard: null });
      const cases = (await (
        await fetch(`${address}/api/runs/${run?.id}/cases?limit=100`)
      ).json()) as {
        cases: Array<{ name: string }>;
        runTotal: number;
      };
      expect(cases.runTotal).toBe(10);
      expect(cases.cases.map((testCase) => testCase.name).sort()).toEqual(
        Array.from({ length: 10 }, (_, index) => `case-${index}`).sort(),
      );
    } finally {
      viewer.child.kill("SIGINT");
      await viewer.exited;
    }
  });

  it("finishes the run of a writer killed mid-run: its leases expire, the other goes on, resume completes it", async () => {
    const url = postgresSchemaUrl();
    server.setLatency(150);
    const env = { STORE_URL: url, CASES: "16", VERDICT_RUN_GROUP: "build-7", LEASE_MS: "1000" };
    const killed = runNode({ args: [child], env: machineEnv({ ...env, SHARD: "1/2" }) });
    const other = runNode({ args: [child], env: machineEnv({ ...env, SHARD: "2/2" }) });
    const reader = await PostgresRunStore.open({ url, env: {} });
    try {
      const latestRunId = async () => (await reader.runs.listRuns())[0]?.id ?? null;
      await expect.poll(latestRunId, { timeout: 30_000, interval: 50 }).not.toBeNull();
      const runId = (await latestRunId()) ?? "";
      // Mid-run: some cases of shard 1 stored, not all.
      await expect
        .poll(
          async () =>
            (await reader.runs.getTestResults(runId)).filter((stored) => stored.result.index < 8)
              .length,
          { timeout: 30_000, interval: 20 },
        )
        .toBeGreaterThan(0);
      killed.child.kill("SIGKILL");
      expect(await killed.exited).toBeNull();
      const finished = await other.finished;
      expect(finished.code).toBe(0);
      expect(JSON.parse(finished.stdout)).toMatchObject({ status: "completed", cases: 8 });
      const stalled = await reader.runs.getRun(runId);
      expect(stalled?.status).toBe("running");
      expect(stalled?.shards?.parts.map((part) => part.status)).toEqual(["running", "completed"]);

      const resumed = await evaluateOn({ ...env, SHARD: "1/2", RESUME: "1" });
      expect(resumed).toMatchObject({ status: "completed", cases: 8 });
      const whole = await reader.runs.getRun(runId);
      expect(whole?.status).toBe("completed");
      expect(whole?.summary?.testCases).toMatchObject({ total: 16, unscored: 0 });
      expect(await reader.runs.getTestResults(runId)).toHaveLength(16);
    } finally {
      killed.child.kill("SIGKILL");
      other.child.kill("SIGKILL");
      await reader.close();
    }
  });

  it("migrates a fresh schema once when many processes open it at the same time", async () => {
    const schema = uniqueSchema();
    const url = postgresSchemaUrl(schema);
    const moduleUrl = new URL("../../src/store/postgres-run-store.ts", import.meta.url).href;
    const script = `
      const { PostgresRunStore } = await import(${JSON.stringify(moduleUrl)});
      const store = await PostgresRunStore.open({ url: ${JSON.stringify(url)}, env: process.env });
      await store.runs.startRun({ id: "run-" + process.pid, identifier: null, status: "running",
        startedAt: new Date().toISOString(), endedAt: null, config: {}, summary: null });
      await store.close();`;
    const runs = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          runNode({ args: ["--input-type=module", "-e", script], env: { PATH: process.env.PATH } })
            .finished,
      ),
    );
    expect(runs.map((run) => [run.code, run.stderr])).toEqual(Array(6).fill([0, ""]));
    const client = new pg.Client({ connectionString: postgresUrl ?? "" });
    await client.connect();
    try {
      const versions = await client.query(
        `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
      );
      expect(versions.rows).toEqual(
        Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })),
      );
      const stored = await client.query(`SELECT count(*)::int AS count FROM "${schema}".runs`);
      expect(stored.rows[0]?.count).toBe(6);
    } finally {
      await client.end();
    }
  });

  it("moves a laptop's history into the team's store and back out, never printing the password", async () => {
    const laptop = machineEnv();
    const recorded = await runNode({ args: [child], env: { ...laptop, CASES: "4" } }).finished;
    expect(recorded.code).toBe(0);
    const laptopFile = path.join(laptop.VERDICT_HOME ?? "", "verdict.db");
    const team = postgresSchemaUrl();
    const outputs: string[] = [];
    const run = async (args: string[], env: NodeJS.ProcessEnv) => {
      const result = await cli(args, env);
      outputs.push(result.stdout, result.stderr);
      return result;
    };

    const migrated = await run(["store", "migrate"], { VERDICT_STORE: team });
    expect(migrated.stdout).toMatch(
      /^Migrated the verdict store postgres:\/\/verdict@127\.0\.0\.1:\d+\/postgres \(schema test_\w+\) to schema version 4 \(applied 1, 2, 3, 4\)\.\n$/,
    );
    const again = await run(["store", "migrate"], { VERDICT_STORE: team });
    expect(again.stdout).toContain("is at schema version 4: nothing to do.");

    const imported = await run(["store", "import", "--from", laptopFile], { VERDICT_STORE: team });
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/Copied 1 run, 4 test results and \d+ judge answers\./);
    const twice = await run(["store", "import", "--from", laptopFile], { VERDICT_STORE: team });
    expect(twice.stdout).toContain("Copied 0 runs, 0 test results and");
    expect(twice.stdout).toContain("1 run already there kept");

    const backup = path.join(home(), "backup.db");
    const exported = await run(["store", "export", "--to", backup], { VERDICT_STORE: team });
    expect(exported.code).toBe(0);
    const source = new SqliteRunStore({ path: laptopFile });
    const copy = new SqliteRunStore({ path: backup });
    try {
      const sourceRuns = await source.runs.listRuns();
      const [original] = sourceRuns;
      expect(await copy.runs.listRuns()).toEqual(sourceRuns);
      expect(await copy.runs.getTestResults(original?.id ?? "")).toEqual(
        await source.runs.getTestResults(original?.id ?? ""),
      );
      const sourceEntries = await source.judgeCache.entries?.({ limit: 1000 });
      expect(await copy.judgeCache.entries?.({ limit: 1000 })).toEqual(sourceEntries);
    } finally {
      await source.close();
      await copy.close();
    }

    const wrong = await run(["store", "import", "--from", "missing.db"], { VERDICT_STORE: team });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("There is no verdict store at");
    const unreachable = team.replace(/:\d+\//, ":1/");
    const refused = await run(["store", "migrate"], { VERDICT_STORE: unreachable });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("nothing answers at 127.0.0.1:1");
    for (const output of outputs) expect(output).not.toContain(POSTGRES_TEST_PASSWORD);
  });
});
