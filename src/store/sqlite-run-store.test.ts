import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { calibrationReport } from "../../test/fixtures/calibration.ts";
import { StoreError } from "../errors/store-error.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { describeJudgeLeaseContract } from "./judge-lease-contract.ts";
import {
  describeRunStoreContract,
  makeRunOwner,
  makeStoredJudgeBatch,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "./run-store-contract.ts";
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
    new SqliteRunStore({ path: databasePath }).close();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error(`opening ${databasePath} did not fail`);
}

describeRunStoreContract({
  name: "SqliteRunStore",
  create: () => {
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
  it("keeps runs, results and cached answers after the file is closed and reopened", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const writer = new SqliteRunStore({ path: databasePath });
    writer.startRun(makeStoredRun({ identifier: "nightly" }));
    writer.saveTestResult("run-1", makeStoredTestResult(1));
    writer.saveTestResult("run-1", makeStoredTestResult(0));
    writer.finishRun({
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
    writer.judgeCache.set("key", answer);
    writer.close();

    const reader = new SqliteRunStore({ path: databasePath });
    expect(reader.getRun("nightly")).toMatchObject({
      id: "run-1",
      status: "completed",
      summary: makeSummary(),
    });
    expect(reader.getTestResults("run-1")).toEqual([
      makeStoredTestResult(0),
      makeStoredTestResult(1),
    ]);
    expect(reader.judgeCache.get("key")).toEqual(answer);
    reader.close();
  });

  it("lets two stores on the same file write in turn and see each other's writes", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const first = new SqliteRunStore({ path: databasePath });
    const second = new SqliteRunStore({ path: databasePath });
    first.startRun(makeStoredRun());
    for (let index = 0; index < 50; index += 1) {
      (index % 2 === 0 ? first : second).saveTestResult("run-1", makeStoredTestResult(index));
      (index % 2 === 0 ? second : first).judgeCache.set(`key-${index}`, {
        text: `answer ${index}`,
        object: undefined,
        inputTokens: null,
        outputTokens: null,
        costUsd: null,
      });
    }
    expect(second.getTestResults("run-1").map((stored) => stored.result.index)).toEqual(
      Array.from({ length: 50 }, (_, index) => index),
    );
    expect(first.judgeCache.get("key-49")?.text).toBe("answer 49");
    first.close();
    second.close();
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

  it("refuses a database written by a newer verdict", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    new SqliteRunStore({ path: databasePath }).close();
    const raw = new DatabaseSync(databasePath);
    raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(openError(databasePath).message).toMatch(/newer verdict/);
  });

  it("records the schema version, so later versions know what to migrate", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    new SqliteRunStore({ path: databasePath }).close();
    const raw = new DatabaseSync(databasePath);
    expect(raw.prepare("PRAGMA user_version").get()?.user_version).toBe(SCHEMA_VERSION);
    expect(raw.prepare("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    raw.close();
  });

  it("migrates a schema 1 file in place: its runs stay readable, with no owner, take heartbeats, versioned results and calibrations", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const writer = new SqliteRunStore({ path: databasePath });
    writer.startRun(makeStoredRun({ identifier: "before-owners" }));
    writer.saveTestResult("run-1", makeStoredTestResult(0));
    writer.close();
    // Turn the file back into what verdict wrote before run owners existed.
    const raw = new DatabaseSync(databasePath);
    raw.exec(`
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
      PRAGMA user_version = 1;
    `);
    raw.close();

    const reader = new SqliteRunStore({ path: databasePath });
    expect(reader.getRun("before-owners")).toEqual(
      makeStoredRun({ identifier: "before-owners", owner: null }),
    );
    expect(reader.getTestResults("run-1")).toEqual([makeStoredTestResult(0)]);
    reader.heartbeatRun({ runId: "run-1", owner: makeRunOwner() });
    expect(reader.getRun("run-1")?.owner).toEqual(makeRunOwner());
    // Results stored before versions were kept are version 0; new saves are versioned.
    expect(reader.getTestResultsVersion("run-1")).toEqual({ count: 1, version: 0 });
    reader.saveTestResult("run-1", makeStoredTestResult(1));
    expect(reader.getTestResults("run-1", { changedAfter: 0 })).toEqual([makeStoredTestResult(1)]);
    reader.saveCalibration(calibrationReport());
    expect(reader.listCalibrations({ runId: "run-1" })).toEqual([calibrationReport()]);
    reader.close();
    const check = new DatabaseSync(databasePath);
    expect(check.prepare("PRAGMA user_version").get()?.user_version).toBe(SCHEMA_VERSION);
    check.close();
    expect(SCHEMA_VERSION).toBe(6);
  });

  it("migrates a schema 4 file in place: its runs and cached answers stay, and it keeps judge batches", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const writer = new SqliteRunStore({ path: databasePath });
    writer.startRun(makeStoredRun({ identifier: "before-batches" }));
    writer.judgeCache.set("key", {
      text: "t",
      object: undefined,
      inputTokens: 1,
      outputTokens: 2,
      costUsd: null,
    });
    writer.close();
    // Turn the file back into what verdict wrote before judge batches existed.
    const raw = new DatabaseSync(databasePath);
    raw.exec(`
      DROP TABLE judge_batches;
      ALTER TABLE runs DROP COLUMN shard_count;
      DROP TABLE run_parts;
      DROP TABLE judge_leases;
      PRAGMA user_version = 4;
    `);
    raw.close();

    const reader = new SqliteRunStore({ path: databasePath });
    expect(reader.getRun("before-batches")?.identifier).toBe("before-batches");
    expect(reader.judgeCache.get("key")?.text).toBe("t");
    expect(reader.judgeBatches.listOpen()).toEqual([]);
    const batch = makeStoredJudgeBatch();
    reader.judgeBatches.save(batch);
    expect(reader.judgeBatches.listOpen()).toEqual([batch]);
    reader.close();
  });

  it.skipIf(isRoot)("refuses a read-only folder at open", () => {
    const folder = makeTemporaryFolder();
    fs.chmodSync(folder, 0o500);
    const databasePath = path.join(folder, "verdict.db");
    const error = openError(databasePath);
    expect(error.message).toContain(databasePath);
    expect(error.message).toMatch(/read-only/);
  });

  it.skipIf(isRoot)("refuses a read-only database file at open", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    new SqliteRunStore({ path: databasePath }).close();
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

  it("throws a StoreError naming the file once closed", () => {
    const databasePath = path.join(makeTemporaryFolder(), "verdict.db");
    const store = new SqliteRunStore({ path: databasePath });
    store.close();
    expect(() => store.listRuns()).toThrow(databasePath);
  });

  it("saves a case with an output of 12 million characters, and one full of quotes, masked", () => {
    const key = "Hx4Wq9Lm2Rt7Vb5Nc8Kd3Pf6Gj1Sz0Ay";
    const forget = registerSecretValues([key]);
    const store = new SqliteRunStore({ path: ":memory:" });
    try {
      store.startRun(makeStoredRun());
      const huge = `${"word ".repeat(2_400_000)}${key}`;
      const quotes = `"apiKey": "${'\\"'.repeat(1_000_000)}`;
      store.saveTestResult("run-1", makeStoredTestResult(0, { actualOutput: huge }));
      store.saveTestResult("run-1", makeStoredTestResult(1, { actualOutput: quotes }));
      const [first, second] = store.getTestResults("run-1");
      expect(first?.result.actualOutput).toBe(`${"word ".repeat(2_400_000)}***`);
      expect(second?.result.actualOutput).toBe(quotes);
    } finally {
      store.close();
      forget();
    }
  });

  it("refuses values that are not plain JSON", () => {
    const store = new SqliteRunStore({ path: ":memory:" });
    store.startRun(makeStoredRun());
    const stored = makeStoredTestResult(0, { metadata: { count: 1n } } as never);
    expect(() => store.saveTestResult("run-1", stored)).toThrow(/not plain JSON/);
    store.close();
  });
});

describe("SqliteRunStore.open", () => {
  it("uses VERDICT_HOME as the folder that holds verdict.db, creating it", () => {
    const home = path.join(makeTemporaryFolder(), "nested", "home");
    const store = SqliteRunStore.open({ env: { VERDICT_HOME: home } });
    expect(store.path).toBe(path.join(home, "verdict.db"));
    expect(fs.existsSync(store.path)).toBe(true);
    store.close();
  });

  it("defaults to .verdict under the working directory", () => {
    const cwd = makeTemporaryFolder();
    const store = SqliteRunStore.open({ env: {}, cwd });
    expect(store.path).toBe(path.join(cwd, ".verdict", "verdict.db"));
    store.close();
  });

  it("writes a .gitignore that keeps the database out of git when it creates the folder", () => {
    const cwd = makeTemporaryFolder();
    SqliteRunStore.open({ env: {}, cwd }).close();
    const ignore = fs.readFileSync(path.join(cwd, ".verdict", ".gitignore"), "utf8");
    const patterns = ignore.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    expect(patterns).toEqual(["verdict.db", "verdict.db-*", "*.tmp"]);
    expect(patterns).not.toContain("config.json");
    // A folder the user made is theirs: no ignore file is added to it.
    const own = path.join(cwd, "own-home");
    fs.mkdirSync(own);
    SqliteRunStore.open({ home: own }).close();
    expect(fs.existsSync(path.join(own, ".gitignore"))).toBe(false);
  });

  it("resolves a relative VERDICT_HOME from the working directory, and prefers home", () => {
    const cwd = makeTemporaryFolder();
    const relative = SqliteRunStore.open({ env: { VERDICT_HOME: "results" }, cwd });
    expect(relative.path).toBe(path.join(cwd, "results", "verdict.db"));
    relative.close();
    const explicit = SqliteRunStore.open({
      home: path.join(cwd, "explicit"),
      env: { VERDICT_HOME: "results" },
      cwd,
    });
    expect(explicit.path).toBe(path.join(cwd, "explicit", "verdict.db"));
    explicit.close();
  });

  it("throws a StoreError when the folder cannot be created", () => {
    const file = path.join(makeTemporaryFolder(), "file");
    fs.writeFileSync(file, "");
    expect(() => SqliteRunStore.open({ home: path.join(file, "home") })).toThrow(StoreError);
  });
});
