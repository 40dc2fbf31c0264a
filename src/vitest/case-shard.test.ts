import type { RunnerTask, RunnerTestFile } from "vitest";
import { describe, expect, it } from "vitest";
import { rankTestFiles, shardOfTest, skipOtherShards, testsOfShard } from "./case-shard.ts";

function dealt(options: { tests: number; count: number; fileRank?: number }): number[] {
  const tests = Array.from({ length: options.tests }, (_, position) => position);
  return Array.from(
    { length: options.count },
    (_, shard) =>
      testsOfShard({
        tests,
        fileRank: options.fileRank ?? 0,
        shard: { index: shard + 1, count: options.count },
      }).length,
  );
}

describe("shards by case", () => {
  it("spreads one file's tests evenly: 15 over 4 shards is 4, 4, 4, 3", () => {
    expect(dealt({ tests: 15, count: 4 })).toEqual([4, 4, 4, 3]);
    expect(dealt({ tests: 15, count: 2 })).toEqual([8, 7]);
    expect(dealt({ tests: 2, count: 4 })).toEqual([1, 1, 0, 0]);
  });

  it("gives every test to exactly one shard, whatever the file's rank", () => {
    for (const fileRank of [0, 1, 5]) {
      for (let position = 0; position < 20; position++) {
        const owners = [1, 2, 3].filter(
          (index) => shardOfTest({ fileRank, position, count: 3 }) === index,
        );
        expect(owners).toHaveLength(1);
      }
    }
  });

  it("rotates the files' remainders, so that many small files stay balanced", () => {
    // Ten files of three tests over four shards: 30 tests, 7 or 8 each.
    const totals = [0, 0, 0, 0];
    for (let fileRank = 0; fileRank < 10; fileRank++) {
      for (const [shard, count] of dealt({ tests: 3, count: 4, fileRank }).entries()) {
        totals[shard] = (totals[shard] ?? 0) + count;
      }
    }
    expect(totals.reduce((sum, count) => sum + count, 0)).toBe(30);
    expect(Math.max(...totals) - Math.min(...totals)).toBeLessThanOrEqual(1);
    // One test per file: one file per shard, in turn.
    const single = [0, 1, 2, 3, 4, 5, 6, 7].map((fileRank) =>
      shardOfTest({ fileRank, position: 0, count: 4 }),
    );
    expect(single).toEqual([1, 2, 3, 4, 1, 2, 3, 4]);
  });

  it("ranks files by their path relative to the root, the same on every machine", () => {
    const files = ["evals/b.eval.ts", "evals/a/z.eval.ts", "evals/a.eval.ts"];
    const ranks = (root: string) => {
      const ranked = rankTestFiles(files.map((file) => ({ root, moduleId: `${root}/${file}` })));
      return files.map((file) => ranked[`${root}/${file}`]);
    };
    expect(ranks("/home/runner/work/app")).toEqual([2, 1, 0]);
    expect(ranks("/builds/team/app")).toEqual([2, 1, 0]);
  });
});

/** A collected file: a describe of `count` tests, then one test of its own that is skipped. */
function collectedFile(count: number): RunnerTestFile {
  const file = {
    type: "suite",
    filepath: "/p/evals/a.eval.ts",
    tasks: [],
  } as unknown as RunnerTestFile;
  const suite = { type: "suite", name: "answers", mode: "run", tasks: [] as RunnerTask[] };
  for (let number = 1; number <= count; number++) {
    suite.tasks.push({ type: "test", name: `answer ${number}`, mode: "run" } as RunnerTask);
  }
  const empty = { type: "suite", name: "other shard only", mode: "run", tasks: [] as RunnerTask[] };
  file.tasks.push(suite as unknown as RunnerTask, empty as unknown as RunnerTask);
  file.tasks.push({ type: "test", name: "skipped", mode: "skip" } as RunnerTask);
  return file;
}

describe("skipOtherShards", () => {
  it("skips the other shards' tests, and the suites left without a test", () => {
    const file = collectedFile(5);
    skipOtherShards(file, { index: 2, count: 2, fileRanks: { "/p/evals/a.eval.ts": 0 } });
    const [suite, empty, skipped] = file.tasks as Array<RunnerTask & { tasks?: RunnerTask[] }>;
    const modes = suite?.tasks?.map((task) => [task.name, task.mode, task.result?.state]);
    expect(modes).toEqual([
      ["answer 1", "skip", "skip"],
      ["answer 2", "run", undefined],
      ["answer 3", "skip", "skip"],
      ["answer 4", "run", undefined],
      ["answer 5", "skip", "skip"],
    ]);
    expect(suite?.mode).toBe("run");
    expect(empty?.mode).toBe("skip");
    // A test skipped by the file itself is not dealt: it takes no shard's turn.
    expect(skipped?.mode).toBe("skip");
    expect(skipped?.result).toBeUndefined();
  });
});
