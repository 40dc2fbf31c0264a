import { describe, expect, it, vi } from "vitest";
import { runTestRun } from "./test-run.ts";
import type { TestRunCommandOptions } from "./test-run-command-options.ts";

const base: TestRunCommandOptions = {
  paths: [],
  cache: true,
  ignoreErrors: false,
  skipOnMissingParams: false,
  verbose: false,
  exitOnFirstFailure: false,
  display: "all",
  cwd: process.cwd(),
  env: {},
};

describe("runTestRun", () => {
  it("returns 2 with one line for a usage error, before starting Vitest", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await runTestRun({ ...base, shard: "3/2" })).toBe(2);
      expect(await runTestRun({ ...base, shard: "one of two" })).toBe(2);
      // Too large to be exact: refused, as evaluate() refuses it, not run unsharded.
      expect(await runTestRun({ ...base, shard: "1/99999999999999999999" })).toBe(2);
      expect(await runTestRun({ ...base, maxConcurrent: 0 })).toBe(2);
      expect(await runTestRun({ ...base, paths: ["no/such/folder"] })).toBe(2);
      expect(stderr.mock.calls.map(([text]) => String(text))).toEqual([
        '--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3; got "3/2".\n',
        '--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3; got "one of two".\n',
        '--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3; got "1/99999999999999999999".\n',
        "--max-concurrent takes a whole number of 1 or more; got 0.\n",
        `No such file or folder: "no/such/folder" (looked in ${process.cwd()}).\n`,
      ]);
    } finally {
      stderr.mockRestore();
    }
  });
});
