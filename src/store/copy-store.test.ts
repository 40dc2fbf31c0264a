import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  createPostgresTestStore,
  postgresMissing,
  postgresUrl,
} from "../../test/fixtures/postgres-test-store.ts";
import {
  evaluationSummaryArbitrary,
  testResultArbitrary,
} from "../../test/fixtures/result-arbitraries.ts";
import { ConfigError } from "../errors/config-error.ts";
import {
  makeStoredJudgeBatch,
  makeStoredRun,
  makeStoredTestResult,
} from "../testing/store-contract.ts";
import { makeCalibrationReport } from "../testing/store-contract-data.ts";
import { copyStore } from "./copy-store.ts";
import { MemoryRunStore } from "./memory-run-store.ts";
import type { JudgeCacheEntry, RunOwner, Store, StoredRun, StoredTestResult } from "./run-store.ts";
import { SqliteRunStore } from "./sqlite-run-store.ts";

const folder = mkdtempSync(path.join(tmpdir(), "verdict-copy-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
const sqliteStore = (file = path.join(folder, `store-${files++}.db`)) =>
  new SqliteRunStore({ path: file });

/**
 * A SQLite store as an older verdict left it, with NUL in names that stores now refuse: run
 * "run\0a" (identifier "night\0ly") with two results and a calibration of metric "Tox\0icity",
 * and run "run-b" with identifier "\0".
 */
async function sqliteStoreWithNulNames(): Promise<SqliteRunStore> {
  const file = path.join(folder, `legacy-${files++}.db`);
  {
    await using store = sqliteStore(file);
    await store.runs.startRun(makeStoredRun({ id: "run-a", identifier: "nightly" }));
    await store.runs.saveTestResult("run-a", makeStoredTestResult(0));
    await store.runs.saveTestResult("run-a", makeStoredTestResult(1));
    await store.runs.startRun(makeStoredRun({ id: "run-b", identifier: "x" }));
    await store.calibrations.saveCalibration(makeCalibrationReport({ id: "cal", runId: "run-a" }));
  }
  const database = new DatabaseSync(file);
  database.exec("PRAGMA foreign_keys = OFF");
  const report = makeCalibrationReport({ id: "cal\u0000", runId: "run\u0000a" });
  report.metric.name = "Tox\u0000icity";
  database
    .prepare("UPDATE runs SET id = ?, identifier = ? WHERE id = 'run-a'")
    .run("run\u0000a", "night\u0000ly");
  database.prepare("UPDATE test_results SET run_id = ? WHERE run_id = 'run-a'").run("run\u0000a");
  database.prepare("UPDATE runs SET identifier = ? WHERE id = 'run-b'").run("\u0000");
  database
    .prepare("UPDATE calibrations SET id = ?, run_id = ?, metric = ?, report = ?")
    .run(report.id, report.runId, report.metric.name, JSON.stringify(report));
  database.close();
  return sqliteStore(file);
}

/** What a copy of {@link sqliteStoreWithNulNames} must hold: each NUL of a name as U+FFFD. */
async function expectNulNamesReplaced(store: Store): Promise<void> {
  const runs = await store.runs.listRuns();
  expect(runs.map((run) => [run.id, run.identifier]).sort()).toEqual([
    ["run-b", "\ufffd"],
    ["run\ufffda", "night\ufffdly"],
  ]);
  expect(await store.runs.getTestResults("run\ufffda")).toEqual([
    makeStoredTestResult(0),
    makeStoredTestResult(1),
  ]);
  const [calibration] = (await store.calibrations?.listCalibrations()) ?? [];
  expect([calibration?.id, calibration?.runId, calibration?.metric.name]).toEqual([
    "cal\ufffd",
    "run\ufffda",
    "Tox\ufffdicity",
  ]);
}

/** Everything a store gives back: its runs newest first, their results, its judge answers. */
async function dump(store: Store) {
  const entries: JudgeCacheEntry[] = [];
  for (;;) {
    const page =
      (await store.judgeCache?.entries?.({ after: entries.at(-1)?.key, limit: 3 })) ?? [];
    entries.push(...page);
    if (page.length < 3) break;
  }
  const runs = [];
  for (const run of await store.runs.listRuns()) {
    runs.push({ run, results: await store.runs.getTestResults(run.id) });
  }
  return {
    runs,
    calibrations: (await store.calibrations?.listCalibrations()) ?? [],
    entries,
    batches: (await store.judgeBatches?.list?.()) ?? [],
  };
}

// Identifiers, ids and host names are text columns: well-formed text without NUL, as a
// command line or a host gives them. Everything else is JSON, which keeps any string.
const name = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 12 })
  .filter((value) => !value.includes("\u0000"));
const isoTime = fc
  .date({ noInvalidDate: true, min: new Date("2000-01-01"), max: new Date("2100-01-01") })
  .map((date) => date.toISOString());
const status = fc.constantFrom(
  "running" as const,
  "completed" as const,
  "interrupted" as const,
  "quota-exhausted" as const,
  "failed" as const,
);
const owner: fc.Arbitrary<RunOwner> = fc.record({
  pid: fc.integer({ min: 1, max: 4_194_304 }),
  hostname: name,
  heartbeatAt: isoTime,
});
const maybe = <Value>(arbitrary: fc.Arbitrary<Value>) => fc.option(arbitrary, { nil: null });

const shards = fc.integer({ min: 1, max: 4 }).chain((count) =>
  fc.record({
    count: fc.constant(count),
    parts: fc
      .subarray(
        Array.from({ length: count }, (_, index) => index + 1),
        { minLength: 1 },
      )
      .chain((indices) =>
        fc.tuple(
          ...indices.map((shard) =>
            fc.record({
              shard: fc.constant(shard),
              status,
              startedAt: isoTime,
              endedAt: maybe(isoTime),
              summary: maybe(evaluationSummaryArbitrary),
              owner: maybe(owner),
            }),
          ),
        ),
      ),
  }),
);

const run = fc.record({
  header: fc.record({
    id: name,
    identifier: maybe(name),
    status,
    // Few distinct times: runs started at the same instant must keep their order.
    startedAt: fc.constantFrom("2025-01-01T00:00:00.000Z", "2025-06-01T12:00:00.000Z"),
    endedAt: maybe(isoTime),
    config: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: 4,
    }),
    summary: maybe(evaluationSummaryArbitrary),
    owner: maybe(owner),
  }),
  shards: fc.option(shards, { nil: undefined }),
  results: fc.array(fc.tuple(testResultArbitrary, fc.string({ maxLength: 20 })), {
    maxLength: 4,
  }),
  calibrated: fc.boolean(),
});

const batch = fc.record({
  id: name,
  provider: fc.constantFrom("openai.batch", "anthropic.batch"),
  judge: name,
  requestKeys: fc.array(name, { maxLength: 3 }),
  state: fc.constantFrom("open" as const, "closed" as const),
  providerStatus: fc.constantFrom("validating", "in_progress", "completed", "expired"),
  createdAt: isoTime,
  updatedAt: isoTime,
});

const cacheEntry = fc.record({
  key: name,
  answer: fc.record({
    text: maybe(fc.string({ maxLength: 30 })),
    object: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
    inputTokens: maybe(fc.nat()),
    outputTokens: maybe(fc.nat()),
    costUsd: maybe(fc.double({ noNaN: true, noDefaultInfinity: true })),
  }),
  createdAt: isoTime,
});

type Generated<Arbitrary> = Arbitrary extends fc.Arbitrary<infer Value> ? Value : never;

/** Writes the generated runs, results and judge answers into a store. */
async function fill(
  store: Store,
  runs: Generated<typeof run>[],
  entries: Generated<typeof cacheEntry>[],
  batches: Generated<typeof batch>[],
) {
  const ids = new Set<string>();
  for (const generated of runs) {
    if (ids.has(generated.header.id)) continue;
    ids.add(generated.header.id);
    const stored: StoredRun = {
      ...generated.header,
      ...(generated.shards === undefined ? {} : { shards: generated.shards }),
    };
    await store.runs.startRun(stored);
    for (const [position, [result, fingerprint]] of generated.results.entries()) {
      const saved: StoredTestResult = { fingerprint, result: { ...result, index: position * 7 } };
      await store.runs.saveTestResult(stored.id, saved);
    }
    if (generated.calibrated) {
      await store.calibrations?.saveCalibration(
        makeCalibrationReport({
          id: `calibration of ${stored.id}`,
          runId: stored.id,
          createdAt: stored.startedAt,
        }),
      );
    }
  }
  for (const generated of batches) await store.judgeBatches?.save(generated);
  for (const entry of entries) {
    // -0 is written as 0 by JSON and by SQL alike.
    const costUsd = Object.is(entry.answer.costUsd, -0) ? 0 : entry.answer.costUsd;
    await store.judgeCache?.set(
      entry.key,
      { ...entry.answer, costUsd },
      { createdAt: entry.createdAt },
    );
  }
}

describe("copyStore", () => {
  it("copies runs, results and judge answers between memory and SQLite stores", async () => {
    await using from = new MemoryRunStore();
    await from.runs.startRun(makeStoredRun({ id: "a", identifier: "nightly" }));
    await from.runs.saveTestResult("a", makeStoredTestResult(0));
    await from.judgeCache.set("k", {
      text: "t",
      object: undefined,
      inputTokens: 1,
      outputTokens: 2,
      costUsd: null,
    });
    await from.calibrations.saveCalibration(makeCalibrationReport({ runId: "a" }));
    await from.judgeBatches.save(makeStoredJudgeBatch({ state: "closed" }));
    await using to = sqliteStore();
    const reported: number[] = [];
    const counts = await copyStore({
      from,
      to,
      onProgress: (progress) => reported.push(progress.runsCopied),
    });
    expect(counts).toEqual({
      runsCopied: 1,
      runsKept: 0,
      testResults: 1,
      calibrations: 1,
      judgeAnswers: 1,
      judgeBatches: 1,
      namesReplaced: 0,
    });
    expect(reported).toEqual([1, 1]);
    expect(await dump(to)).toEqual(await dump(from));
  });

  it("copies the judge prompts and answers a run keeps, with the results that name them", async () => {
    const prompt = {
      hash: createHash("sha256").update("the prompt").digest("hex"),
      text: "the prompt",
    };
    const answer = { hash: createHash("sha256").update("{}").digest("hex"), text: "{}" };
    const call = {
      step: "generateOpinions",
      model: "mock-judge",
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
      latencyMs: null,
      source: "judge" as const,
      promptHash: prompt.hash,
      answerHash: answer.hash,
    };
    const stored = makeStoredTestResult(0);
    const [metric] = stored.result.metricsData;
    stored.result.metricsData = [
      { ...(metric as StoredTestResult["result"]["metricsData"][0]), calls: [call] },
    ];
    const from = new MemoryRunStore();
    await from.runs.startRun(makeStoredRun());
    await from.runs.saveTestResult("run-1", { ...stored, judgeTexts: [prompt, answer] });
    await using to = sqliteStore();
    await copyStore({ from, to });
    expect(await to.runs.getTestResults("run-1")).toEqual([stored]);
    const copied = await to.getJudgeTexts("run-1", [prompt.hash, answer.hash]);
    expect(copied.sort((left, right) => left.text.localeCompare(right.text))).toEqual([
      answer,
      prompt,
    ]);
  });

  it("keeps runs the target has, adding only the results they lack", async () => {
    await using from = new MemoryRunStore();
    await from.runs.startRun(makeStoredRun({ id: "a" }));
    for (const index of [0, 1, 2]) await from.runs.saveTestResult("a", makeStoredTestResult(index));
    await using to = new MemoryRunStore();
    await to.runs.startRun(makeStoredRun({ id: "a", status: "interrupted" }));
    await to.runs.saveTestResult("a", makeStoredTestResult(1, { input: "kept" }));
    expect(await copyStore({ from, to })).toMatchObject({
      runsCopied: 0,
      runsKept: 1,
      testResults: 2,
    });
    expect((await to.runs.getRun("a"))?.status).toBe("interrupted");
    expect((await to.runs.getTestResults("a")).map((stored) => stored.result.input)).toEqual([
      "question 0",
      "kept",
      "question 2",
    ]);
  });

  it("copies a run of 2,500 results and 1,200 judge answers, a page at a time", async () => {
    await using from = new MemoryRunStore();
    await using to = sqliteStore();
    await from.runs.startRun(makeStoredRun());
    for (let index = 0; index < 2_500; index += 1) {
      await from.runs.saveTestResult("run-1", makeStoredTestResult(index));
    }
    for (let index = 0; index < 1_200; index += 1) {
      await from.judgeCache.set(`key-${String(index).padStart(4, "0")}`, {
        text: `answer ${index}`,
        object: undefined,
        inputTokens: null,
        outputTokens: null,
        costUsd: null,
      });
    }
    const counts = await copyStore({ from, to, pageSize: 500 });
    expect(counts).toMatchObject({ runsCopied: 1, testResults: 2_500, judgeAnswers: 1_200 });
    expect(await to.runs.getTestResultsVersion("run-1")).toMatchObject({ count: 2_500 });
    expect(await dump(to)).toEqual(await dump(from));
  });

  it("copies only runs and results into a store that has no other parts", async () => {
    await using from = new MemoryRunStore();
    await from.runs.startRun(makeStoredRun());
    await from.runs.saveTestResult("run-1", makeStoredTestResult(0));
    await from.calibrations.saveCalibration(makeCalibrationReport());
    await from.judgeCache.set("k", {
      text: "t",
      object: undefined,
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
    });
    await using memory = new MemoryRunStore();
    const runsOnly: Store = {
      runs: memory.runs,
      shards: null,
      calibrations: null,
      judgeCache: null,
      judgeBatches: null,
      leases: null,
      close: () => memory.close(),
      [Symbol.asyncDispose]: () => memory.close(),
    };
    expect(await copyStore({ from, to: runsOnly })).toEqual({
      runsCopied: 1,
      runsKept: 0,
      testResults: 1,
      calibrations: 0,
      judgeAnswers: 0,
      judgeBatches: 0,
      namesReplaced: 0,
    });
    expect(await runsOnly.runs.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
  });

  it("replaces each NUL of a name stored before NUL was refused with U+FFFD, and says so", async () => {
    await using from = await sqliteStoreWithNulNames();
    await using to = new MemoryRunStore();
    const counts = await copyStore({ from, to });
    expect(counts).toMatchObject({ runsCopied: 2, testResults: 2, calibrations: 1 });
    expect(counts.namesReplaced).toBe(5);
    await expectNulNamesReplaced(to);
    // Again: the runs are found under their new names and kept, nothing is added twice.
    expect(await copyStore({ from, to })).toMatchObject({
      runsCopied: 0,
      runsKept: 2,
      testResults: 0,
    });
  });

  it("refuses a copy in which two runs would get the same id, naming both", async () => {
    await using from = await sqliteStoreWithNulNames();
    await from.runs.startRun(makeStoredRun({ id: "run\ufffda" }));
    await using to = new MemoryRunStore();
    const copying = copyStore({ from, to });
    await expect(copying).rejects.toThrow(ConfigError);
    await expect(copying).rejects.toThrow(/"run\\u0000a".*"run\ufffda"/);
    expect(await to.runs.listRuns()).toEqual([]);
  });
});

describe.skipIf(postgresUrl === null)(`copyStore with PostgreSQL ${postgresMissing}`, () => {
  it("round-trips every field SQLite → PostgreSQL → SQLite", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(run, { maxLength: 4 }),
        fc.uniqueArray(cacheEntry, { maxLength: 5, selector: (entry) => entry.key }),
        fc.uniqueArray(batch, {
          maxLength: 3,
          selector: (generated) => `${generated.provider}/${generated.id}`,
        }),
        async (runs, entries, batches) => {
          await using original = sqliteStore();
          await using team = await createPostgresTestStore();
          await using back = sqliteStore();
          await fill(original, runs, entries, batches);
          await copyStore({ from: original, to: team });
          await copyStore({ from: team, to: back });
          const expected = await dump(original);
          expect(await dump(team)).toEqual(expected);
          expect(await dump(back)).toEqual(expected);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("imports a SQLite store holding NUL in names, which PostgreSQL refuses, with U+FFFD", async () => {
    await using from = await sqliteStoreWithNulNames();
    await using to = await createPostgresTestStore();
    expect((await copyStore({ from, to })).namesReplaced).toBe(5);
    await expectNulNamesReplaced(to);
  });
});
