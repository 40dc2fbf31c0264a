import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { calibrationReport } from "../../test/fixtures/calibration.ts";
import {
  createPostgresTestStore,
  postgresMissing,
  postgresUrl,
} from "../../test/fixtures/postgres-test-store.ts";
import {
  evaluationSummaryArbitrary,
  testResultArbitrary,
} from "../../test/fixtures/result-arbitraries.ts";
import { copyStore } from "./copy-store.ts";
import { MemoryRunStore } from "./memory-run-store.ts";
import type { OpenedRunStore } from "./open-run-store.ts";
import type { JudgeCacheEntry, RunOwner, StoredRun, StoredTestResult } from "./run-store.ts";
import { makeStoredJudgeBatch, makeStoredRun, makeStoredTestResult } from "./run-store-contract.ts";
import { SqliteRunStore } from "./sqlite-run-store.ts";

const folder = mkdtempSync(path.join(tmpdir(), "verdict-copy-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
const sqliteStore = () => new SqliteRunStore({ path: path.join(folder, `store-${files++}.db`) });

/** Everything a store gives back: its runs newest first, their results, its judge answers. */
function dump(store: OpenedRunStore) {
  const entries: JudgeCacheEntry[] = [];
  for (;;) {
    const page = store.judgeCache?.entries?.({ after: entries.at(-1)?.key, limit: 3 }) ?? [];
    entries.push(...page);
    if (page.length < 3) break;
  }
  return {
    runs: store.listRuns().map((run) => ({ run, results: store.getTestResults(run.id) })),
    calibrations: store.listCalibrations(),
    entries,
    batches: store.judgeBatches?.list?.() ?? [],
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
function fill(
  store: OpenedRunStore,
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
    store.startRun(stored);
    generated.results.forEach(([result, fingerprint], position) => {
      const saved: StoredTestResult = { fingerprint, result: { ...result, index: position * 7 } };
      store.saveTestResult(stored.id, saved);
    });
    if (generated.calibrated) {
      store.saveCalibration(
        calibrationReport({
          id: `calibration of ${stored.id}`,
          runId: stored.id,
          createdAt: stored.startedAt,
        }),
      );
    }
  }
  for (const generated of batches) store.judgeBatches?.save(generated);
  for (const entry of entries) {
    // -0 is written as 0 by JSON and by SQL alike.
    const costUsd = Object.is(entry.answer.costUsd, -0) ? 0 : entry.answer.costUsd;
    store.judgeCache?.set(entry.key, { ...entry.answer, costUsd }, { createdAt: entry.createdAt });
  }
}

describe("copyStore", () => {
  it("copies runs, results and judge answers between memory and SQLite stores", () => {
    const from = new MemoryRunStore();
    from.startRun(makeStoredRun({ id: "a", identifier: "nightly" }));
    from.saveTestResult("a", makeStoredTestResult(0));
    from.judgeCache.set("k", {
      text: "t",
      object: undefined,
      inputTokens: 1,
      outputTokens: 2,
      costUsd: null,
    });
    from.saveCalibration(calibrationReport({ runId: "a" }));
    from.judgeBatches.save(makeStoredJudgeBatch({ state: "closed" }));
    const to = sqliteStore();
    const reported: number[] = [];
    const counts = copyStore({
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
    });
    expect(reported).toEqual([1, 1]);
    expect(dump(to)).toEqual(dump(from));
    to.close();
  });

  it("keeps runs the target has, adding only the results they lack", () => {
    const from = new MemoryRunStore();
    from.startRun(makeStoredRun({ id: "a" }));
    for (const index of [0, 1, 2]) from.saveTestResult("a", makeStoredTestResult(index));
    const to = new MemoryRunStore();
    to.startRun(makeStoredRun({ id: "a", status: "interrupted" }));
    to.saveTestResult("a", makeStoredTestResult(1, { input: "kept" }));
    expect(copyStore({ from, to })).toMatchObject({ runsCopied: 0, runsKept: 1, testResults: 2 });
    expect(to.getRun("a")?.status).toBe("interrupted");
    expect(to.getTestResults("a").map((stored) => stored.result.input)).toEqual([
      "question 0",
      "kept",
      "question 2",
    ]);
  });
});

describe.skipIf(postgresUrl === null)(`copyStore with PostgreSQL ${postgresMissing}`, () => {
  it("round-trips every field SQLite → PostgreSQL → SQLite", () => {
    fc.assert(
      fc.property(
        fc.array(run, { maxLength: 4 }),
        fc.uniqueArray(cacheEntry, { maxLength: 5, selector: (entry) => entry.key }),
        fc.uniqueArray(batch, {
          maxLength: 3,
          selector: (generated) => `${generated.provider}/${generated.id}`,
        }),
        (runs, entries, batches) => {
          const original = sqliteStore();
          const team = createPostgresTestStore();
          const back = sqliteStore();
          try {
            fill(original, runs, entries, batches);
            copyStore({ from: original, to: team });
            copyStore({ from: team, to: back });
            const expected = dump(original);
            expect(dump(team)).toEqual(expected);
            expect(dump(back)).toEqual(expected);
          } finally {
            for (const store of [original, team, back]) store.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
