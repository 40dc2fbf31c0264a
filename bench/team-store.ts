// The team-store load test (issue 13): N processes on one machine, each a shard of the suite
// (1,000 cases × 3 metrics by default), writing one run into one store with a shared judge
// cache, against the fake OpenAI server; then the same suite again. Checks 0 lost results,
// 0 duplicate results, 0 requests paid twice across processes and 0 judge calls the second
// time; measures throughput, store-call latency (p50/p99), how long a judge cache claim waits,
// the event loop's delay in each process and the CPU time per case (shards and server). Runs on PostgreSQL (a throw-away server, durable
// settings) and, for comparison, on one shared SQLite file. Also measures one store round trip
// and how soon a waiting store hears of an answer. Writes bench/results/team-store.{json,md}.
//   node --conditions=verdict-source bench/team-store.ts [--processes 8] [--cases 1000]
//     [--latency 0] [--stores postgres,sqlite] [--round-trips 2000] [--out DIR] [--help]
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { resolvePostgresConnection } from "../src/store/postgres-connection.ts";
import { PostgresPool } from "../src/store/postgres-pool.ts";
import { PostgresRunStore } from "../src/store/postgres-run-store.ts";
import type { Store } from "../src/store/run-store.ts";
import { SqliteRunStore } from "../src/store/sqlite-run-store.ts";
import { startPostgresCluster } from "../test/fixtures/postgres-cluster.ts";
import { startFakeServerChild } from "./fake-server-child.ts";

const { values } = parseArgs({
  options: {
    processes: { type: "string", default: "8" },
    cases: { type: "string", default: "1000" },
    latency: { type: "string", default: "0" },
    stores: { type: "string", default: "postgres,sqlite" },
    "round-trips": { type: "string", default: "2000" },
    package: { type: "string", default: "source" },
    out: { type: "string", default: fileURLToPath(new URL("./results", import.meta.url)) },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help) {
  console.log(`node --conditions=verdict-source bench/team-store.ts [options]

N processes, each evaluate() on its shard of an N × cases suite (3 metrics), writing one run
into one store with a shared judge cache; then the same suite again. Per store: lost,
duplicate and paid-twice counts, cases/s, store-call and claim latency, event-loop delay.

  --processes N        processes (shards) at once                     (default 8)
  --cases N            cases per process                               (default 1000)
  --latency MS         the fake OpenAI server's latency per request    (default 0)
  --stores LIST        postgres, sqlite or both, comma-separated       (default postgres,sqlite)
  --round-trips N      calls per micro-figure (pool hop, SELECT 1, …)  (default 2000)
  --package KIND       the shards run verdict's "source" (src/, types stripped as
                       modules load) or its "built" dist/ (as installed; run
                       \`npm run build\` first)                          (default source)
  --out DIR            where team-store.{json,md} are written          (default bench/results)`);
  process.exit(0);
}
if (values.package !== "source" && values.package !== "built") {
  throw new Error(`--package takes "source" or "built"; got "${values.package}".`);
}
const processes = Number(values.processes);
const casesPerShard = Number(values.cases);
const total = processes * casesPerShard;
// Every request is asked by two shards: shard k and shard k + N/2 hold the same questions.
const unique = Math.max(1, Math.floor(total / 2));
const shardScript = fileURLToPath(new URL("./team-store-shard.ts", import.meta.url));

interface ShardFigures {
  shard: string;
  runId: string;
  status: string;
  cases: number;
  wallMs: number;
  judgeCalls: number;
  cacheHits: number;
  sharedCalls: number;
  roundTrips: { calls: number; totalMs: number } | null;
  cpuMs: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  samples: Record<string, number[]>;
}

function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number;
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

function runShard(options: {
  store: string;
  url: string;
  shard: string;
  env: NodeJS.ProcessEnv;
}): Promise<ShardFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(values.package === "built" ? [] : ["--conditions=verdict-source"]),
        shardScript,
        ...["--store", options.store, "--url", options.url, "--shard", options.shard],
        ...["--cases", String(total), "--unique", String(unique)],
      ],
      { env: options.env, stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`shard ${options.shard} exited with ${code}`));
      else resolve(JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as ShardFigures);
    });
  });
}

interface PassFigures {
  wallS: number;
  casesPerS: number;
  judgeCalls: number;
  cacheHits: number;
  sharedCalls: number;
  serverRequests: number;
  latency: Record<string, { count: number; p50: number; p99: number }>;
  writeLatency: { count: number; p50: number; p99: number };
  /** The event loop's delay: the worst shard's p99 and max, in ms. */
  eventLoopDelay: { p99: number; max: number };
  /** CPU time per case: of the shards' processes, and of the PostgreSQL server (or null). */
  cpuMsPerCase: { shards: number; server: number | null };
  /** Store statements per case (PostgreSQL), or null. */
  statementsPerCase: number | null;
}

async function runPass(options: {
  store: string;
  url: string;
  group: string;
  env: NodeJS.ProcessEnv;
  server: Awaited<ReturnType<typeof startFakeServerChild>>;
  serverCpuMs: () => number | null;
}): Promise<{ figures: PassFigures; shards: ShardFigures[] }> {
  await options.server.reset();
  const serverCpuBefore = options.serverCpuMs();
  const started = performance.now();
  const shards = await Promise.all(
    Array.from({ length: processes }, (_, position) =>
      runShard({
        store: options.store,
        url: options.url,
        shard: `${position + 1}/${processes}`,
        env: { ...options.env, VERDICT_RUN_GROUP: options.group },
      }),
    ),
  );
  const wallMs = performance.now() - started;
  // The server reaps the backends of the closed stores.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const serverCpuAfter = options.serverCpuMs();
  const stats = await options.server.stats();
  const merged: Record<string, number[]> = {};
  for (const shard of shards) {
    for (const [method, list] of Object.entries(shard.samples)) {
      merged[method] = [...(merged[method] ?? []), ...list];
    }
  }
  const summarize = (list: number[]) => ({
    count: list.length,
    p50: round(percentile(list, 0.5)),
    p99: round(percentile(list, 0.99)),
  });
  const writes = [
    "saveTestResult",
    "judgeCache.set",
    "heartbeatRun",
    "heartbeatRunPart",
    "startRunPart",
    "finishRunPart",
    "finishRun",
  ].flatMap((method) => merged[method] ?? []);
  const sum = (pick: (shard: ShardFigures) => number) =>
    shards.reduce((total, shard) => total + pick(shard), 0);
  return {
    shards,
    figures: {
      wallS: round(wallMs / 1000, 2),
      casesPerS: round(total / (wallMs / 1000), 1),
      judgeCalls: sum((shard) => shard.judgeCalls),
      cacheHits: sum((shard) => shard.cacheHits),
      sharedCalls: sum((shard) => shard.sharedCalls),
      serverRequests: stats.byEndpoint.responses ?? 0,
      latency: Object.fromEntries(
        Object.entries(merged).map(([method, list]) => [method, summarize(list)]),
      ),
      writeLatency: summarize(writes),
      eventLoopDelay: {
        p99: round(Math.max(...shards.map((shard) => shard.eventLoopDelayMs.p99))),
        max: round(Math.max(...shards.map((shard) => shard.eventLoopDelayMs.max))),
      },
      cpuMsPerCase: {
        shards: round(sum((shard) => shard.cpuMs) / total, 2),
        server:
          serverCpuBefore === null || serverCpuAfter === null
            ? null
            : round((serverCpuAfter - serverCpuBefore) / total, 2),
      },
      statementsPerCase: shards.every((shard) => shard.roundTrips === null)
        ? null
        : round(sum((shard) => shard.roundTrips?.calls ?? 0) / total, 2),
    },
  };
}

/**
 * The CPU time the PostgreSQL server on `port` has used so far, in ms: its postmaster's and
 * that of the backends it reaped (Linux's /proc; `null` elsewhere). Backends end when the
 * shards close their stores, so a pass's figure is read once they have.
 */
function serverCpuReader(port: number): () => number | null {
  let postmaster: string | undefined;
  try {
    postmaster = execFileSync("pgrep", ["-f", "--", `-p ${port}`], { encoding: "utf8" })
      .trim()
      .split("\n")[0];
  } catch {
    return () => null;
  }
  return () => {
    try {
      // After the command's name: state, …, utime (14th), stime, cutime, cstime, in ticks of
      // 1/100 s.
      const fields = readFileSync(`/proc/${postmaster}/stat`, "utf8").split(") ")[1]?.split(" ");
      return [11, 12, 13, 14].reduce((sum, field) => sum + Number(fields?.[field]), 0) * 10;
    } catch {
      return null;
    }
  };
}

/** Lost and duplicate results of the run, and its status, read back from the store. */
async function checkRun(store: Store, runId: string) {
  const run = await store.runs.getRun(runId);
  const results = await store.runs.getTestResults(runId);
  const indices = new Set(results.map((stored) => stored.result.index));
  const expected = Array.from({ length: total }, (_, index) => index);
  return {
    status: run?.status ?? "missing",
    parts: run?.shards?.parts.length ?? 0,
    partsCompleted: run?.shards?.parts.filter((part) => part.status === "completed").length ?? 0,
    storedResults: results.length,
    lost: expected.filter((index) => !indices.has(index)).length,
    duplicates: results.length - indices.size,
    summaryTotal: run?.summary?.testCases.total ?? null,
  };
}

/**
 * One store round trip (a pool's connection lent and returned with no SQL, `SELECT 1`, a store
 * read) against SQLite for scale, and how soon a store waiting for a judge answer hears that
 * another store wrote it (LISTEN/NOTIFY). Calls one at a time.
 */
async function measureRoundTrips(url: string, count: number, folder: string) {
  const time = async (operation: (index: number) => Promise<unknown>) => {
    const samples: number[] = [];
    for (let index = 0; index < count; index++) {
      const started = performance.now();
      await operation(index);
      samples.push(performance.now() - started);
    }
    return { p50: round(percentile(samples, 0.5)), p99: round(percentile(samples, 0.99)) };
  };
  const postgres = await PostgresRunStore.open({ url });
  const waiter = await PostgresRunStore.open({ url });
  const pool = await PostgresPool.connect(resolvePostgresConnection({ url, env: process.env }), {
    maxConnections: 1,
  });
  const sqlite = new SqliteRunStore({ path: path.join(folder, "round-trip.db") });
  const answer = { text: "no", object: undefined, inputTokens: 1, outputTokens: 1, costUsd: 0 };
  try {
    await postgres.runs.getRun("warm-up");
    // The waiter's first wait returns once it listens.
    await waiter.leases.waitForKey("warm-up", { timeoutMs: 5000 });
    return {
      poolHopMs: await time(() => pool.run([])),
      postgresSelectOneMs: await time(() => pool.run([{ text: "SELECT 1" }])),
      postgresGetRunMs: await time(() => postgres.runs.getRun("no-such-run")),
      postgresCacheGetMs: await time(() => postgres.judgeCache.get("no-such-key")),
      notifyWakeMs: await time(async (index) => {
        const woken = waiter.leases.waitForKey(`wake-${index}`, { timeoutMs: 5000 });
        await postgres.judgeCache.set(`wake-${index}`, answer);
        await woken;
      }),
      sqliteGetRunMs: await time(() => sqlite.runs.getRun("no-such-run")),
      sqliteCacheGetMs: await time(async () => sqlite.judgeCache.get("no-such-key")),
    };
  } finally {
    await pool.close();
    await postgres.close();
    await waiter.close();
    await sqlite.close();
  }
}

const folder = mkdtempSync(path.join(tmpdir(), "verdict-team-bench-"));
const cluster = await startPostgresCluster({ fast: false, maxConnections: 100 });
const postgresServerCpuMs = serverCpuReader(cluster.port);
const server = await startFakeServerChild({
  latencyMs: Number(values.latency),
  judge: "realistic",
});
const report: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  processes,
  casesPerShard,
  metrics: 3,
  totalCases: total,
  uniqueCases: unique,
  latencyMs: Number(values.latency),
  package: values.package,
  loadAtStart: loadavg()[0],
};
try {
  report.roundTrips = await measureRoundTrips(
    `${cluster.url}?schema=round_trip`,
    Number(values["round-trips"]),
    folder,
  );
  console.log("round trips", report.roundTrips);
  for (const kind of values.stores.split(",")) {
    const home = path.join(folder, kind);
    mkdirSync(home, { recursive: true });
    const url = `${cluster.url}?schema=load_${kind}`;
    const env = {
      PATH: process.env.PATH,
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-bench-fake-key",
      VERDICT_HOME: home,
    };
    const store = kind === "postgres" ? "postgres" : "sqlite";
    const serverCpuMs = kind === "postgres" ? postgresServerCpuMs : () => null;
    const first = await runPass({ store, url, group: "first", env, server, serverCpuMs });
    const runId = first.shards[0]?.runId ?? "";
    const reader: Store =
      store === "postgres"
        ? await PostgresRunStore.open({ url })
        : new SqliteRunStore({ path: path.join(home, "verdict.db") });
    const check = await checkRun(reader, runId);
    let cached = 0;
    if (reader instanceof PostgresRunStore) {
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      const rows = await client.query(
        `SELECT count(*)::int AS count FROM load_${kind}.judge_cache`,
      );
      cached = rows.rows[0]?.count ?? 0;
      await client.end();
    } else {
      cached = (await reader.judgeCache?.entries?.({ limit: 1_000_000 }))?.length ?? 0;
    }
    await reader.close();
    const second = await runPass({ store, url, group: "second", env, server, serverCpuMs });
    const result = {
      first: first.figures,
      run: check,
      cachedAnswers: cached,
      paidTwice: first.figures.serverRequests - cached,
      second: second.figures,
    };
    report[kind] = result;
    console.log(kind, JSON.stringify(result, null, 1));
  }
} finally {
  await server.stop();
  await cluster.stop();
  rmSync(folder, { recursive: true, force: true });
}

report.loadAtEnd = loadavg()[0];
mkdirSync(values.out, { recursive: true });
writeFileSync(path.join(values.out, "team-store.json"), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(path.join(values.out, "team-store.md"), renderMarkdown(report));
console.log(`Wrote ${path.join(values.out, "team-store.md")}`);

function renderMarkdown(figures: Record<string, unknown>): string {
  type StoreFigures = {
    first: PassFigures;
    second: PassFigures;
    run: Awaited<ReturnType<typeof checkRun>>;
    cachedAnswers: number;
    paidTwice: number;
  };
  const rows = ["postgres", "sqlite"]
    .filter((kind) => figures[kind] !== undefined)
    .map((kind) => {
      const store = figures[kind] as StoreFigures;
      const latency = (method: string) => {
        const entry = store.first.latency[method];
        return entry === undefined ? "–" : `${entry.p50} / ${entry.p99}`;
      };
      return `| ${kind} | ${store.first.wallS} | ${store.first.casesPerS} | ${store.first.serverRequests} | ${store.first.judgeCalls} | ${store.first.cacheHits} | ${store.first.sharedCalls} | ${store.paidTwice} | ${store.run.storedResults} | ${store.run.lost} | ${store.run.duplicates} | ${store.run.status} (${store.run.partsCompleted}/${store.run.parts} shards) | ${store.first.writeLatency.p50} / ${store.first.writeLatency.p99} | ${latency("saveTestResult")} | ${latency("judgeCache.set")} | ${latency("claim")} | ${store.first.eventLoopDelay.p99} / ${store.first.eventLoopDelay.max} | ${store.first.cpuMsPerCase.shards} / ${store.first.cpuMsPerCase.server ?? "–"} | ${store.first.statementsPerCase ?? "–"} | ${store.second.wallS} | ${store.second.judgeCalls} | ${store.second.serverRequests} |`;
    });
  const trips = figures.roundTrips as Record<string, { p50: number; p99: number }>;
  return `# Team store load test

${figures.date} · Node ${figures.node} · ${figures.cpus} CPUs (load average ${Number(figures.loadAtStart).toFixed(2)} at start, ${Number(figures.loadAtEnd).toFixed(2)} at end; the machine is shared) · ${figures.processes} processes × ${figures.casesPerShard} cases × 3 metrics (Toxicity, Bias, Answer Relevancy) = ${figures.totalCases} cases, each request asked by 2 shards (${figures.uniqueCases} distinct cases) · fake OpenAI server (realistic judge, latency ${figures.latencyMs} ms) in its own process · PostgreSQL 15 throw-away server on 127.0.0.1 with durable settings (fsync on) · SQLite: one shared file (WAL).

Command: \`node --conditions=verdict-source bench/team-store.ts --processes ${figures.processes} --cases ${figures.casesPerShard} --latency ${figures.latencyMs} --package ${figures.package}\` (shards on verdict's ${figures.package === "built" ? "built dist/, as installed" : "source, types stripped as modules load"})

| store | wall s | cases/s | requests to the server | judge calls (sum) | cache hits (sum) | shared in flight (sum) | paid twice | results stored | lost | duplicate | run | store writes p50 / p99 ms | saveTestResult p50 / p99 ms | cache set p50 / p99 ms | claim (incl. waiting) p50 / p99 ms | event-loop delay p99 / max ms (worst shard) | CPU ms per case: shards / server | store statements per case | second run wall s | second run judge calls | second run requests |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}

"paid twice" = requests the server answered − answers cached (each paid request leaves one cached answer; a request paid by two processes would leave one answer for two requests). "claim" = from a case's first look at a judge request in the shared cache to the answer or the lease (waiting for another process's answer included). Event-loop delay: how late a timer fires in a shard's process (\`monitorEventLoopDelay\`, 10 ms resolution), the worst shard's p99 and max. CPU ms per case: the shards' processes (user + system) and the PostgreSQL server (its backends, from /proc); store statements per case: what the PostgreSQL store sent (calls made together go as one).${ratio(figures)}

## One store round trip (${values["round-trips"]} calls, p50 / p99 ms)

| call | p50 | p99 |
|---|---|---|
${Object.entries(trips)
  .map(([name, value]) => `| ${name} | ${value.p50} | ${value.p99} |`)
  .join("\n")}

poolHop: a connection of the store's pool lent and given back with no SQL (the driver's and the pool's own cost); postgresSelectOne: \`SELECT 1\` on it; getRun / cache get: a whole store call (a miss); notifyWake: a judge answer written by one store until another store waiting for that key wakes (LISTEN/NOTIFY; the write's round trip included).
`;
}

function ratio(figures: Record<string, unknown>): string {
  const casesPerS = (kind: string) =>
    (figures[kind] as { first?: PassFigures } | undefined)?.first?.casesPerS;
  const postgres = casesPerS("postgres");
  const sqlite = casesPerS("sqlite");
  if (postgres === undefined || sqlite === undefined) return "";
  return ` PostgreSQL's cases/s are ${(postgres / sqlite).toFixed(2)}× SQLite's in this run.`;
}
