// Several Node processes writing one SQLite store at once, as parallel Vitest workers and
// shards do. A whole-program test: it starts child processes.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import { makeStoredRun } from "../../src/testing/store-contract.ts";
import { testResult } from "../fixtures/results.ts";
import { projectRoot } from "./run-node.ts";

const temporaryFolders: string[] = [];

afterEach(() => {
  for (const folder of temporaryFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("SqliteRunStore", () => {
  it("lets several processes write the same file at once", async () => {
    const folder = mkdtempSync(join(tmpdir(), "verdict-store-"));
    temporaryFolders.push(folder);
    const databasePath = join(folder, "verdict.db");
    const setup = new SqliteRunStore({ path: databasePath });
    await setup.runs.startRun(makeStoredRun());
    const moduleUrl = new URL("../../src/store/sqlite-run-store.ts", import.meta.url).href;
    const writer = (worker: number) => `
      const { SqliteRunStore } = await import(${JSON.stringify(moduleUrl)});
      const store = new SqliteRunStore({ path: ${JSON.stringify(databasePath)} });
      for (let step = 0; step < 100; step += 1) {
        const index = ${worker} * 100 + step;
        await store.runs.saveTestResult("run-1", { fingerprint: "f", result: { ...${JSON.stringify(testResult())}, index, name: "case " + index } });
        await store.judgeCache.set("key-" + index, { text: "t", object: undefined, inputTokens: null, outputTokens: null, costUsd: null });
      }
      await store.close();`;
    const run = promisify(execFile);
    const outputs = await Promise.all(
      [0, 1, 2, 3].map((worker) =>
        run(process.execPath, ["--input-type=module", "-e", writer(worker)], { cwd: projectRoot }),
      ),
    );
    // Each writer ran cleanly: no error and no warning (the children's warnings are not hidden).
    expect(outputs.map((output) => output.stderr)).toEqual(["", "", "", ""]);
    expect(await setup.runs.getTestResults("run-1")).toHaveLength(400);
    expect((await setup.judgeCache.get("key-399"))?.text).toBe("t");
    await setup.close();
  });
});
