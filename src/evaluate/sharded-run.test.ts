import { describe, expect, it } from "vitest";
import { answer } from "../../test/fixtures/judge-answers.ts";
import { ConfigError } from "../errors/config-error.ts";
import { StoreError } from "../errors/store-error.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { evaluate } from "./evaluate.ts";
import { shardIndices } from "./run-session.ts";

const quiet = { display: "none" as const, handleInterrupt: false };
const testCases = Array.from({ length: 10 }, (_, index) => ({
  name: `case-${index}`,
  input: `question ${index}`,
  actualOutput: index % 3 === 0 ? `nasty output ${index}` : `fine output ${index}`,
}));

function runShard(options: {
  store: MemoryRunStore;
  shard: string;
  env?: NodeJS.ProcessEnv;
  judge?: MockJudge;
  resume?: boolean;
}) {
  const judge = options.judge ?? new MockJudge({ answers: answer });
  return evaluate({
    testCases,
    metrics: [new ToxicityMetric({ model: judge, threshold: 0.3 })],
    store: options.store,
    identifier: "nightly",
    shard: options.shard,
    env: options.env ?? { VERDICT_RUN_GROUP: "build-7" },
    ...(options.resume ? { resume: true } : {}),
    ...quiet,
  });
}

describe("shardIndices", () => {
  it("gives shard i of n the i-th of n consecutive, near-equal blocks", () => {
    const shards = [1, 2, 3].map((index) =>
      shardIndices({ total: 10, shard: { index, count: 3 } }),
    );
    expect(shards).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8, 9],
    ]);
    expect(shardIndices({ total: 2, shard: { index: 1, count: 4 } })).toEqual([]);
    expect(shardIndices({ total: 3, shard: null })).toEqual([0, 1, 2]);
  });
});

describe("evaluate({ shard }) with a run group", () => {
  it("writes every shard of a build into one run, summed up whole when the last one ends", async () => {
    const store = new MemoryRunStore();
    const second = await runShard({ store, shard: "2/3" });
    const first = await runShard({ store, shard: "1/3" });
    const third = await runShard({ store, shard: "3/3" });

    expect(second.testResults.map((result) => result.index)).toEqual([3, 4, 5]);
    expect(first.testResults.map((result) => result.index)).toEqual([0, 1, 2]);
    expect(third.testResults.map((result) => result.index)).toEqual([6, 7, 8, 9]);
    expect(new Set([first.testRunId, second.testRunId, third.testRunId]).size).toBe(1);
    expect(second.summary.testCases.total).toBe(3);

    expect(await store.runs.listRuns()).toHaveLength(1);
    const run = await store.runs.getRun("nightly");
    expect(run).toMatchObject({ status: "completed", config: { runGroup: "build-7" } });
    expect(run?.shards?.count).toBe(3);
    expect(run?.shards?.parts.map((part) => [part.shard, part.status])).toEqual([
      [1, "completed"],
      [2, "completed"],
      [3, "completed"],
    ]);
    const shards = [first, second, third];
    expect(shards.map((shard) => shard.summary.testCases.failed)).toEqual([1, 1, 2]);
    const passed = shards.reduce((sum, shard) => sum + shard.summary.testCases.passed, 0);
    expect(run?.summary?.testCases).toMatchObject({
      total: 10,
      passed,
      failed: 10 - passed,
      unscored: 0,
    });
    expect(run?.summary?.judgeCalls).toBe(
      first.summary.judgeCalls + second.summary.judgeCalls + third.summary.judgeCalls,
    );
    const stored = await store.runs.getTestResults(run?.id ?? "");
    expect(stored.map((entry) => entry.result.name)).toEqual(
      testCases.map((testCase) => testCase.name),
    );
  });

  it("keeps a run of its own per build, and per shard without a group", async () => {
    const store = new MemoryRunStore();
    await runShard({ store, shard: "1/2", env: { VERDICT_RUN_GROUP: "build-1" } });
    await runShard({ store, shard: "1/2", env: { VERDICT_RUN_GROUP: "build-2" } });
    await runShard({ store, shard: "1/2", env: {} });
    await runShard({ store, shard: "2/2", env: {} });
    const runs = await store.runs.listRuns();
    expect(runs).toHaveLength(4);
    expect(runs.filter((run) => run.shards !== undefined)).toHaveLength(2);
    expect(runs.find((run) => run.shards === undefined)?.config.shard).toBe("2/2");
  });

  it("resumes a shard's part, reusing only that shard's finished cases", async () => {
    const store = new MemoryRunStore();
    await runShard({ store, shard: "1/2" });
    await runShard({ store, shard: "2/2" });
    const judge = new MockJudge({ answers: answer });
    const resumed = await runShard({ store, shard: "2/2", judge, resume: true });
    expect(judge.calls).toHaveLength(0);
    expect(resumed.testResults.map((result) => result.index)).toEqual([5, 6, 7, 8, 9]);
    expect(await store.runs.listRuns()).toHaveLength(1);
    expect(await store.runs.getRun("nightly")).toMatchObject({ status: "completed" });
  });

  it("asks for a run group to resume a shard, and refuses a malformed shard", async () => {
    const store = new MemoryRunStore();
    await expect(runShard({ store, shard: "1/2", env: {}, resume: true })).rejects.toThrow(
      /resuming shard 1\/2 needs the run its shards share: set VERDICT_RUN_GROUP/,
    );
    await expect(runShard({ store, shard: "3/2" })).rejects.toThrow(/shard takes "i\/n"/);
  });
});

describe("evaluate({ store }) naming a store", () => {
  const judge = () => new MockJudge({ answers: answer });
  const run = (store: string | undefined, env: NodeJS.ProcessEnv = {}) =>
    evaluate({
      testCases: testCases.slice(0, 1),
      metrics: [new ToxicityMetric({ model: judge() })],
      ...(store === undefined ? {} : { store }),
      env,
      ...quiet,
    });

  it("stops when the store it names cannot be opened, saying why without the password", async () => {
    const url = "postgres://team:Sup3rSecretPw@127.0.0.1:1/evals";
    const error = (await run(url).then(
      () => null,
      (caught: unknown) => caught,
    )) as Error;
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/nothing answers at 127\.0\.0\.1:1/);
    expect(error.message).not.toContain("Sup3rSecretPw");
    await expect(run(undefined, { VERDICT_STORE: url })).rejects.toThrow(StoreError);
  });

  it("refuses a store setting that is not a postgres:// URL", async () => {
    await expect(run("./evals.db")).rejects.toThrow(ConfigError);
    await expect(run("./evals.db")).rejects.toThrow(
      /give a postgres:\/\/ URL, a Store object, or false/,
    );
    await expect(run(undefined, { VERDICT_STORE: "mysql://h/db" })).rejects.toThrow(
      /VERDICT_STORE is "mysql:\/\/h\/db": set it to a postgres:\/\/ URL/,
    );
  });
});
