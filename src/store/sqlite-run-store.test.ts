import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { testResultArbitrary } from "../../test/fixtures/result-arbitraries.ts";
import { StoreError } from "../errors/store-error.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import {
  describeStoreContract,
  makeRunOwner,
  makeStoredJudgeBatch,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "../testing/store-contract.ts";
import { makeCalibrationReport } from "../testing/store-contract-data.ts";
import { describeJudgeLeaseContract } from "./judge-lease-contract.ts";
import { SCHEMA_VERSION, SqliteRunStore } from "./sqlite-run-store.ts";

const isRoot = process.getuid?.() === 0;
const temporaryFolders: string[] = [];

function makeTemporaryFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-store-"));
  temporaryFolders.push(folder);
  return folder;
}

function removeFolder(folder: string): void {
  fs.chmodSync(folder, 0o700);
  fs.rmSync(folder, { recursive: true, force: true });
}

afterEach(() => {
  for (const folder of temporaryFolders.splice(0)) removeFolder(folder);
});

function openError(databasePath: string): StoreError {
  try {
    new SqliteRunStore({ path: databasePath }).closeNow();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error(`opening ${databasePath} did not fail`);
}

describeStoreContract({
  name: "SqliteRunStore",
  create: async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-contract-"));
    return {
      store: new SqliteRunStore({ path: path.join(folder, "verdict.db") }),
      cleanup: () => removeFolder(folder),
    };
  },
});

describeJudgeLeaseContract({
  name: "SqliteRunStore",
  // Two stores on one file: two processes (Vitest workers, shards on one machine).
  open: ({ leaseMs }) => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const options = { path: databasePath, ...(leaseMs === undefined ? {} : { leaseMs }) };
    return { first: new SqliteRunStore(options), second: new SqliteRunStore(options) };
  },
});

describe("SqliteRunStore", () => {
  it("keeps runs, results and cached answers after the file is closed and reopened", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const writer = new SqliteRunStore({ path: databasePath });
    await writer.runs.startRun(makeStoredRun({ identifier: "nightly" }));
    await writer.runs.saveTestResult("run-1", makeStoredTestResult(1));
    await writer.runs.saveTestResult("run-1", makeStoredTestResult(0));
    await writer.runs.finishRun({
      runId: "run-1",
      status: "completed",
      endedAt: "2025-01-01T11:00:00.000Z",
      summary: makeSummary(),
    });
    const answer = {
      text: null,
      object: { opinions: ["x"] },
      inputTokens: 3,
      outputTokens: 4,
      costUsd: 0.01,
    };
    await writer.judgeCache.set("key", answer);
    await writer.close();

    await using reader = new SqliteRunStore({ path: databasePath });
    expect(await reader.runs.getRun("nightly")).toMatchObject({
      id: "run-1",
      status: "completed",
      summary: makeSummary(),
    });
    expect(await reader.runs.getTestResults("run-1")).toEqual([
      makeStoredTestResult(0),
      makeStoredTestResult(1),
    ]);
    expect(await reader.judgeCache.get("key")).toEqual(answer);
  });

  it("lets two stores on the same file write in turn and see each other's writes", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    await using first = new SqliteRunStore({ path: databasePath });
    await using second = new SqliteRunStore({ path: databasePath });
    await first.runs.startRun(makeStoredRun());
    for (let index = 0; index < 50; index += 1) {
      await (index % 2 === 0 ? first : second).runs.saveTestResult(
        "run-1",
        makeStoredTestResult(index),
      );
      await (index % 2 === 0 ? second : first).judgeCache.set(`key-${index}`, {
        text: `answer ${index}`,
        object: undefined,
        inputTokens: null,
        outputTokens: null,
        costUsd: null,
      });
    }
    expect(
      (await second.runs.getTestResults("run-1")).map((stored) => stored.result.index),
    ).toEqual(Array.from({ length: 50 }, (_, index) => index));
    expect((await first.judgeCache.get("key-49"))?.text).toBe("answer 49");
  });

  it("keeps every field of generated results (odd text, nested spans, optional fields)", async () => {
    await using store = new SqliteRunStore({ path: ":memory:" });
    await store.runs.startRun(makeStoredRun());
    const results = fc.sample(testResultArbitrary, { numRuns: 30, seed: 11 });
    const byIndex = new Map(results.map((result) => [result.index, result]));
    for (const result of byIndex.values()) {
      await store.runs.saveTestResult("run-1", { fingerprint: "f", result });
    }
    const read = (await store.runs.getTestResults("run-1")).map((stored) => stored.result);
    expect(read).toStrictEqual(
      structuredClone([...byIndex.values()].sort((left, right) => left.index - right.index)),
    );
  });

  it("refuses a corrupt file at open, naming it and saying what to do", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    fs.writeFileSync(databasePath, Buffer.from("definitely not sqlite ".repeat(300)));
    const error = openError(databasePath);
    expect(error.message).toContain(databasePath);
    expect(error.message).toMatch(/not a verdict database or is corrupt/);
    expect(error.message).toMatch(/VERDICT_HOME/);
  });

  it("refuses another program's SQLite database", () => {
    const databasePath = path.join(makeTemporaryFolder(), "other.db");
    const other = new DatabaseSync(databasePath);
    other.exec("CREATE TABLE runs (name TEXT)");
    other.close();
    expect(openError(databasePath).message).toMatch(/another program, not a verdict database/);
  });

  it("refuses a database written by a newer verdict", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    await new SqliteRunStore({ path: databasePath }).close();
    const raw = new DatabaseSync(databasePath);
    raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(openError(databasePath).message).toMatch(/newer verdict/);
  });

  it("records the schema version, so later versions know what to migrate", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    await new SqliteRunStore({ path: databasePath }).close();
    const raw = new DatabaseSync(databasePath);
    expect(raw.prepare("PRAGMA user_version").get()?.user_version).toBe(SCHEMA_VERSION);
    expect(raw.prepare("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    raw.close();
  });

  it("migrates a schema 1 file in place: its runs stay readable, with no owner, take heartbeats, versioned results and calibrations", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const writer = new SqliteRunStore({ path: databasePath });
    await writer.runs.startRun(makeStoredRun({ identifier: "before-owners" }));
    await writer.runs.saveTestResult("run-1", makeStoredTestResult(0));
    await writer.close();
    // Turn the file back into what verdict wrote before run owners existed.
    const raw = new DatabaseSync(databasePath);
    raw.exec(`
      DROP TABLE judge_texts;
      DROP TABLE judge_batches;
      DROP TABLE calibrations;
      DROP INDEX test_results_by_version;
      ALTER TABLE test_results DROP COLUMN version;
      ALTER TABLE runs DROP COLUMN owner_pid;
      ALTER TABLE runs DROP COLUMN owner_hostname;
      ALTER TABLE runs DROP COLUMN heartbeat_at;
      ALTER TABLE runs DROP COLUMN shard_count;
      DROP TABLE run_parts;
      DROP TABLE judge_leases;
      ALTER TABLE judge_cache DROP COLUMN logprobs;
      PRAGMA user_version = 1;
    `);
    raw.close();

    const reader = new SqliteRunStore({ path: databasePath });
    const { runs, calibrations } = reader;
    expect(await runs.getRun("before-owners")).toEqual(
      makeStoredRun({ identifier: "before-owners", owner: null }),
    );
    expect(await runs.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
    await runs.heartbeatRun({ runId: "run-1", owner: makeRunOwner() });
    expect((await runs.getRun("run-1"))?.owner).toEqual(makeRunOwner());
    // Results stored before versions were kept are version 0; new saves are versioned.
    expect(await runs.getTestResultsVersion("run-1")).toEqual({ count: 1, version: 0 });
    await runs.saveTestResult("run-1", makeStoredTestResult(1));
    expect(await runs.getTestResults("run-1", { changedAfter: 0 })).toEqual([
      makeStoredTestResult(1),
    ]);
    await calibrations.saveCalibration(makeCalibrationReport());
    expect(await calibrations.listCalibrations({ runId: "run-1" })).toEqual([
      makeCalibrationReport(),
    ]);
    await reader.close();
    const check = new DatabaseSync(databasePath);
    expect(check.prepare("PRAGMA user_version").get()?.user_version).toBe(SCHEMA_VERSION);
    check.close();
    expect(SCHEMA_VERSION).toBe(9);
  });

  it("migrates a schema 4 file in place: its runs and cached answers stay, and it keeps judge batches", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const writer = new SqliteRunStore({ path: databasePath });
    await writer.runs.startRun(makeStoredRun({ identifier: "before-batches" }));
    await writer.judgeCache.set("key", {
      text: "t",
      object: undefined,
      inputTokens: 1,
      outputTokens: 2,
      costUsd: null,
    });
    await writer.close();
    // Turn the file back into what verdict wrote before judge batches existed.
    const raw = new DatabaseSync(databasePath);
    raw.exec(`
      DROP TABLE judge_texts;
      DROP TABLE judge_batches;
      ALTER TABLE runs DROP COLUMN shard_count;
      DROP TABLE run_parts;
      DROP TABLE judge_leases;
      ALTER TABLE judge_cache DROP COLUMN logprobs;
      PRAGMA user_version = 4;
    `);
    raw.close();

    await using reader = new SqliteRunStore({ path: databasePath });
    expect((await reader.runs.getRun("before-batches"))?.identifier).toBe("before-batches");
    expect((await reader.judgeCache.get("key"))?.text).toBe("t");
    expect(await reader.judgeBatches.listOpen()).toEqual([]);
    const batch = makeStoredJudgeBatch();
    await reader.judgeBatches.save(batch);
    expect(await reader.judgeBatches.listOpen()).toEqual([batch]);
  });

  it("migrates a schema 6 file in place: its cached answers read back without logprobs, new ones keep theirs", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const answer = { text: "7", object: undefined, inputTokens: 1, outputTokens: 1, costUsd: null };
    const writer = new SqliteRunStore({ path: databasePath });
    await writer.judgeCache.set("before", answer);
    await writer.close();
    // Turn the file back into what verdict wrote before it kept token log-probabilities.
    const raw = new DatabaseSync(databasePath);
    raw.exec(
      "DROP TABLE judge_texts; ALTER TABLE judge_cache DROP COLUMN logprobs; PRAGMA user_version = 6;",
    );
    raw.close();

    await using reader = new SqliteRunStore({ path: databasePath });
    expect(await reader.judgeCache.get("before")).toEqual(answer);
    expect(await reader.judgeCache.get("before")).not.toHaveProperty("logprobs");
    const logprobs = [{ token: "7", logprob: -0.3, topLogprobs: [{ token: "8", logprob: -1.5 }] }];
    await reader.judgeCache.set("after", { ...answer, logprobs });
    expect((await reader.judgeCache.get("after"))?.logprobs).toEqual(logprobs);
  });

  it("migrates a schema 7 file in place: its results stay, new ones keep their judge texts", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const writer = new SqliteRunStore({ path: databasePath });
    await writer.runs.startRun(makeStoredRun());
    await writer.runs.saveTestResult("run-1", makeStoredTestResult(0));
    await writer.close();
    // Turn the file back into what verdict wrote before it kept judge texts.
    const raw = new DatabaseSync(databasePath);
    raw.exec("DROP TABLE judge_texts; PRAGMA user_version = 7;");
    raw.close();

    await using reader = new SqliteRunStore({ path: databasePath });
    expect(await reader.runs.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
    const text = "Extract the opinions.";
    const hash = createHash("sha256").update(text).digest("hex");
    await reader.runs.saveTestResult("run-1", {
      ...makeStoredTestResult(1),
      judgeTexts: [{ hash, text }],
    });
    expect(await reader.getJudgeTexts("run-1", [hash])).toEqual([{ hash, text }]);
  });

  it.skipIf(isRoot)("refuses a read-only folder at open", () => {
    const folder = makeTemporaryFolder();
    fs.chmodSync(folder, 0o500);
    const databasePath = path.join(folder, "verdict.db");
    const error = openError(databasePath);
    expect(error.message).toContain(databasePath);
    expect(error.message).toMatch(/read-only/);
  });

  it.skipIf(isRoot)("refuses a read-only database file at open", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    await new SqliteRunStore({ path: databasePath }).close();
    fs.chmodSync(databasePath, 0o400);
    expect(openError(databasePath).message).toMatch(/read-only/);
  });

  it("refuses a path whose folder is a file at open", () => {
    const file = path.join(makeTemporaryFolder(), "not-a-folder");
    fs.writeFileSync(file, "");
    const databasePath = path.join(file, "verdict.db");
    const error = openError(databasePath);
    expect(error.message).toContain(databasePath);
    expect(error.message).toMatch(/is a file, not a folder/);
  });

  it("rejects with a StoreError naming the file once closed", async () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const store = new SqliteRunStore({ path: databasePath });
    await store.close();
    await expect(store.runs.listRuns()).rejects.toThrow(databasePath);
    await expect(store.judgeCache.get("key")).rejects.toThrow(databasePath);
  });

  it("closes at once with closeNow, for an exit handler that cannot wait", async () => {
    const store = new SqliteRunStore({ path: ":memory:" });
    store.closeNow();
    store.closeNow();
    await expect(store.runs.listRuns()).rejects.toThrow(StoreError);
  });

  it("saves a case with an output of 12 million characters, and one full of quotes, masked", async () => {
    const key = "Hx4Wq9Lm2Rt7Vb5Nc8Kd3Pf6Gj1Sz0Ay";
    const forget = registerSecretValues([key]);
    const store = new SqliteRunStore({ path: ":memory:" });
    try {
      await store.runs.startRun(makeStoredRun());
      const huge = `${"word ".repeat(2_400_000)}${key}`;
      const quotes = `"apiKey": "${'\\"'.repeat(1_000_000)}`;
      await store.runs.saveTestResult("run-1", makeStoredTestResult(0, { actualOutput: huge }));
      await store.runs.saveTestResult("run-1", makeStoredTestResult(1, { actualOutput: quotes }));
      const [first, second] = await store.runs.getTestResults("run-1");
      expect(first?.result.actualOutput).toBe(`${"word ".repeat(2_400_000)}***`);
      expect(second?.result.actualOutput).toBe(quotes);
    } finally {
      await store.close();
      forget();
    }
  });

  it("refuses values that are not plain JSON", async () => {
    await using store = new SqliteRunStore({ path: ":memory:" });
    await store.runs.startRun(makeStoredRun());
    const stored = makeStoredTestResult(0, { metadata: { count: 1n } } as never);
    await expect(store.runs.saveTestResult("run-1", stored)).rejects.toThrow(/not plain JSON/);
  });
});

describe("SqliteRunStore.open", () => {
  it("uses VERDICT_HOME as the folder that holds verdict.db, creating it", async () => {
    const home = path.join(makeTemporaryFolder(), "nested", "home");
    await using store = SqliteRunStore.open({ env: { VERDICT_HOME: home } });
    expect(store.path).toBe(path.join(home, "verdict.db"));
    expect(fs.existsSync(store.path)).toBe(true);
  });

  it("defaults to .verdict under the working directory", async () => {
    const cwd = makeTemporaryFolder();
    await using store = SqliteRunStore.open({ env: {}, cwd });
    expect(store.path).toBe(path.join(cwd, ".verdict", "verdict.db"));
  });

  it("writes a .gitignore that keeps the database out of git when it creates the folder", async () => {
    const cwd = makeTemporaryFolder();
    await SqliteRunStore.open({ env: {}, cwd }).close();
    const ignore = fs.readFileSync(path.join(cwd, ".verdict", ".gitignore"), "utf8");
    const patterns = ignore.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    expect(patterns).toEqual(["verdict.db", "verdict.db-*", "*.tmp"]);
    expect(patterns).not.toContain("config.json");
    // A folder the user made is theirs: no ignore file is added to it.
    const own = path.join(cwd, "own-home");
    fs.mkdirSync(own);
    await SqliteRunStore.open({ home: own }).close();
    expect(fs.existsSync(path.join(own, ".gitignore"))).toBe(false);
  });

  it("resolves a relative VERDICT_HOME from the working directory, and prefers home", async () => {
    const cwd = makeTemporaryFolder();
    await using relative = SqliteRunStore.open({ env: { VERDICT_HOME: "results" }, cwd });
    expect(relative.path).toBe(path.join(cwd, "results", "verdict.db"));
    await using explicit = SqliteRunStore.open({
      home: path.join(cwd, "explicit"),
      env: { VERDICT_HOME: "results" },
      cwd,
    });
    expect(explicit.path).toBe(path.join(cwd, "explicit", "verdict.db"));
  });

  it("throws a StoreError when the folder cannot be created", () => {
    const file = path.join(makeTemporaryFolder(), "file");
    fs.writeFileSync(file, "");
    expect(() => SqliteRunStore.open({ home: path.join(file, "home") })).toThrow(StoreError);
  });
});
