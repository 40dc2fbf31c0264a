// One machine of the team-store load test (bench/team-store.ts): evaluate() on its shard of
// the suite, writing into the shared store, with every store call timed, each judge cache
// claim timed from its first look to its answer or lease (waiting included), and the event
// loop's delay sampled throughout. Started by the orchestrator with
// --conditions=verdict-source; prints one JSON line of figures.
//   node bench/team-store-shard.ts --store postgres --url URL --shard 3/8 --cases 8000 --unique 4000
// Env: OPENAI_BASE_URL (the fake server), VERDICT_RUN_GROUP, VERDICT_HOME (the SQLite store).
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  evaluate,
  type LLMTestCaseFields,
  ToxicityMetric,
} from "verdict";
import { PostgresRunStore, SqliteRunStore } from "verdict/stores";
import type { JudgeLeases, Store } from "../src/store/run-store.ts";
import { generateCases } from "./bench-cases.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "postgres" },
    url: { type: "string", default: "" },
    shard: { type: "string", default: "1/1" },
    cases: { type: "string", default: "1000" },
    unique: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "20" },
  },
});

/** Milliseconds of each store call, by method. */
const samples: Record<string, number[]> = {};

/** `target` with each method call timed into `samples`, under `prefix` + the method's name. */
function timed<Target extends object>(target: Target, prefix: string): Target {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result = value.apply(object, args);
        const record = () => sample(`${prefix}${property}`, performance.now() - started);
        if (result instanceof Promise) return result.finally(record);
        record();
        return result;
      };
    },
  });
}

function sample(name: string, milliseconds: number): void {
  const list = samples[name] ?? [];
  list.push(milliseconds);
  samples[name] = list;
}

/**
 * Leases whose calls are timed, and each claim (one holder's looks at one key, from the first
 * to the one that returns the answer or the lease) timed whole as `claim`: what a case waits
 * before it may ask the judge or use another process's answer.
 */
function timedLeases(leases: JudgeLeases): JudgeLeases {
  const firstLook = new Map<string, number>();
  const inner = timed(leases, "leases.");
  return {
    ...inner,
    tryClaim: async (key, holder, leaseMs) => {
      const claim = `${holder}\u0000${key}`;
      if (!firstLook.has(claim)) firstLook.set(claim, performance.now());
      const attempt = await inner.tryClaim(key, holder, leaseMs);
      if ("answer" in attempt || attempt.leased) {
        sample("claim", performance.now() - (firstLook.get(claim) ?? 0));
        firstLook.delete(claim);
      }
      return attempt;
    },
  };
}

const inner: Store =
  values.store === "postgres"
    ? await PostgresRunStore.open({ url: values.url })
    : await SqliteRunStore.open();
const measured: Store = {
  runs: timed(inner.runs, ""),
  shards: inner.shards === null ? null : timed(inner.shards, ""),
  calibrations: inner.calibrations,
  judgeCache: inner.judgeCache === null ? null : timed(inner.judgeCache, "judgeCache."),
  judgeBatches: inner.judgeBatches,
  leases: inner.leases === null ? null : timedLeases(inner.leases),
  close: () => inner.close(),
  [Symbol.asyncDispose]: () => inner.close(),
};

const unique = generateCases(Number(values.unique));
const total = Number(values.cases);
// Case i asks what case i mod unique asks: the shards that hold the same positions of their
// blocks ask the same judge requests at about the same time.
const testCases: LLMTestCaseFields[] = Array.from({ length: total }, (_, index) => ({
  ...(unique[index % unique.length] as LLMTestCaseFields),
  name: `case-${index}`,
}));

// How late timers fire: what a store that blocks the event loop costs everything else in the
// process (progress, heartbeats, other cases' judge calls).
const eventLoopDelay = monitorEventLoopDelay({ resolution: 10 });
eventLoopDelay.enable();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await evaluate({
  testCases,
  metrics: [
    new ToxicityMetric({ model: "gpt-4.1" }),
    new BiasMetric({ model: "gpt-4.1" }),
    new AnswerRelevancyMetric({ model: "gpt-4.1" }),
  ],
  store: measured,
  identifier: "team-load",
  shard: values.shard,
  maxConcurrent: Number(values.concurrency),
  display: "none",
  handleInterrupt: false,
});
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
eventLoopDelay.disable();
const roundTrips = inner instanceof PostgresRunStore ? inner.timing : null;
await inner.close();
process.stdout.write(
  `${JSON.stringify({
    shard: values.shard,
    runId: result.testRunId,
    status: result.summary.status,
    cases: result.testResults.length,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    cpuSystemMs: cpu.system / 1000,
    judgeCalls: result.summary.judgeCalls,
    cacheHits: result.summary.cacheHits,
    sharedCalls: result.summary.sharedCalls,
    roundTrips,
    eventLoopDelayMs: {
      p50: eventLoopDelay.percentile(50) / 1e6,
      p99: eventLoopDelay.percentile(99) / 1e6,
      max: eventLoopDelay.max / 1e6,
    },
    samples,
  })}\n`,
);
