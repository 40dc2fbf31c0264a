import path from "node:path";
import type { RunnerTask, RunnerTestFile, RunnerTestSuite } from "vitest";

/**
 * What a Vitest worker needs to run only its shard's tests: the shard, and the rank of every
 * test file of the suite (by its path relative to the root, sorted), keyed by the file's
 * absolute path. `verdict test run --shard i/n` provides it to the workers (Vitest's `provide`).
 */
export interface CaseShard {
  /** From 1. */
  index: number;
  count: number;
  /** Each test file's rank among the suite's files, by absolute path (`/` separators). */
  fileRanks: Record<string, number>;
}

/** The key under which `verdict test run` provides the {@link CaseShard} to its workers. */
export const CASE_SHARD_KEY = "verdictCaseShard";

declare module "vitest" {
  interface ProvidedContext {
    /** The shard of a `verdict test run --shard i/n`: see `CaseShard`. */
    verdictCaseShard?: CaseShard;
  }
}

/** Options of {@link shardOfTest}. */
export interface ShardOfTestOptions {
  /** The test file's rank among the suite's files (from 0). */
  fileRank: number;
  /** The test's place among its file's tests that run (from 0, in collection order). */
  position: number;
  /** How many shards. */
  count: number;
}

/**
 * The shard (from 1) that runs a test: the tests of each file are dealt out in turn, the
 * first to the shard after the previous file's rank, so that every file spreads over every
 * shard (15 tests of one file over 4 shards: 4, 4, 4, 3) and the files' remainders rotate
 * over the shards. It depends only on where the test is in the suite, so every shard, on any
 * machine, deals the same.
 * @example
 * shardOfTest({ fileRank: 0, position: 5, count: 4 }); // 2
 */
export function shardOfTest(options: ShardOfTestOptions): number {
  return ((options.fileRank + options.position) % options.count) + 1;
}

/** Options of {@link testsOfShard}. */
export interface TestsOfShardOptions<Test> {
  /** The file's tests that run (not skipped, not todo), in collection order. */
  tests: readonly Test[];
  fileRank: number;
  shard: { index: number; count: number };
}

/** The tests of one file that a shard runs (see {@link shardOfTest}). */
export function testsOfShard<Test>(options: TestsOfShardOptions<Test>): Test[] {
  const { shard, fileRank } = options;
  return options.tests.filter(
    (_, position) => shardOfTest({ fileRank, position, count: shard.count }) === shard.index,
  );
}

/** A file's rank; a file not in the list (a path given that the globs miss) comes after them. */
export function fileRankOf(shard: CaseShard, file: string): number {
  return shard.fileRanks[file.split("\\").join("/")] ?? Object.keys(shard.fileRanks).length;
}

function testsThatRun(suite: RunnerTestSuite | RunnerTestFile): RunnerTask[] {
  const tests: RunnerTask[] = [];
  for (const task of suite.tasks) {
    if (task.type === "suite") tests.push(...testsThatRun(task));
    else if (task.type === "test" && (task.mode === "run" || task.mode === "queued")) {
      tests.push(task);
    }
  }
  return tests;
}

/**
 * In a Vitest worker, before a file's tests run: marks the tests of other shards skipped (and
 * the suites left with none, so that their hooks do not run). Called from verdict's setup
 * file in a file-level `beforeAll`, once the file is collected.
 */
export function skipOtherShards(file: RunnerTestFile, shard: CaseShard): void {
  const tests = testsThatRun(file);
  const mine = new Set(testsOfShard({ tests, fileRank: fileRankOf(shard, file.filepath), shard }));
  const visit = (suite: RunnerTestSuite | RunnerTestFile): boolean => {
    let runs = false;
    for (const task of suite.tasks) {
      if (task.type === "suite") {
        if (visit(task)) runs = true;
        else if (task.mode === "run" || task.mode === "queued") {
          task.mode = "skip";
        }
      } else if (task.type === "test" && (task.mode === "run" || task.mode === "queued")) {
        if (mine.has(task)) runs = true;
        else {
          task.mode = "skip";
          task.result = { ...task.result, state: "skip" };
        }
      }
    }
    return runs;
  };
  visit(file);
}

/**
 * The {@link CaseShard.fileRanks} of a suite's test files: each file's rank among them sorted
 * by its path relative to its project's root (the order of the case indices too).
 */
export function rankTestFiles(
  files: ReadonlyArray<{ root: string; moduleId: string }>,
): Record<string, number> {
  const posix = (file: string) => file.split("\\").join("/");
  const relative = new Map<string, string>();
  for (const file of files) {
    relative.set(posix(file.moduleId), posix(path.relative(file.root, file.moduleId)));
  }
  const sorted = [...relative.entries()].sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(sorted.map(([absolute], rank) => [absolute, rank]));
}
