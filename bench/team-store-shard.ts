// One machine of the team-store load test (bench/team-store.ts): evaluate() on its shard of
// the suite, writing into the shared store, with every store call timed. Started by the
// orchestrator with --conditions=verdict-source; prints one JSON line of figures.
//   node bench/team-store-shard.ts --store postgres --url URL --shard 3/8 --cases 8000 --unique 4000
// Env: OPENAI_BASE_URL (the fake server), VERDICT_RUN_GROUP, VERDICT_HOME (the SQLite store).
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  evaluate,
  type JudgeCache,
  type LLMTestCaseFields,
  PostgresRunStore,
  type RunStore,
  SqliteRunStore,
  ToxicityMetric,
} from "verdict";
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

/** `target` with each method call timed into `samples`; `replaced` properties served instead. */
function timed<Target extends object>(
  target: Target,
  prefix: string,
  replaced: Record<string, unknown> = {},
): Target {
  return new Proxy(target, {
    get(object, property, receiver) {
      if (typeof property === "string" && property in replaced) return replaced[property];
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result = value.apply(object, args);
        const record = () => {
          const list = samples[`${prefix}${property}`] ?? [];
          list.push(performance.now() - started);
          samples[`${prefix}${property}`] = list;
        };
        if (result instanceof Promise) return result.finally(record);
        record();
        return result;
      };
    },
  });
}

const inner: RunStore & { judgeCache: JudgeCache } =
  values.store === "postgres" ? new PostgresRunStore({ url: values.url }) : SqliteRunStore.open();
const measured = timed(inner, "", { judgeCache: timed(inner.judgeCache, "judgeCache.") });

const unique = generateCases(Number(values.unique));
const total = Number(values.cases);
// Case i asks what case i mod unique asks: the shards that hold the same positions of their
// blocks ask the same judge requests at about the same time.
const testCases: LLMTestCaseFields[] = Array.from({ length: total }, (_, index) => ({
  ...(unique[index % unique.length] as LLMTestCaseFields),
  name: `case-${index}`,
}));

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
const roundTrips = inner instanceof PostgresRunStore ? inner.timing : null;
inner.close();
process.stdout.write(
  `${JSON.stringify({
    shard: values.shard,
    runId: result.testRunId,
    status: result.summary.status,
    cases: result.testResults.length,
    wallMs,
    judgeCalls: result.summary.judgeCalls,
    cacheHits: result.summary.cacheHits,
    sharedCalls: result.summary.sharedCalls,
    roundTrips,
    samples,
  })}\n`,
);
