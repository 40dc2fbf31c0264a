// A run that cannot go on without its store (resume, a shard of a build's shared run) stops
// before any judge call when the default store cannot be opened; other runs go on without it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answer } from "../../test/fixtures/judge-answers.ts";
import {
  failsByPermissions,
  makeUnopenableStore,
  removeUnopenableStore,
  runsAsRoot,
  UNOPENABLE_STORES,
} from "../../test/fixtures/unopenable-stores.ts";
import { StoreError } from "../errors/store-error.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { evaluate } from "./evaluate.ts";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) removeUnopenableStore(home);
});

function newHome(): string {
  const home = join(mkdtempSync(join(tmpdir(), "verdict-needed-store-")), ".verdict");
  homes.push(home);
  return home;
}

const testCases = [
  { name: "a", input: "q", actualOutput: "fine output 1" },
  { name: "b", input: "q", actualOutput: "fine output 2" },
];

async function runOn(options: { home: string; extra: Record<string, unknown> }) {
  const judge = new MockJudge({ answers: answer });
  const run = evaluate({
    testCases,
    metrics: [new ToxicityMetric({ model: judge })],
    identifier: "nightly",
    env: { VERDICT_HOME: options.home },
    display: "none",
    handleInterrupt: false,
    ...options.extra,
  });
  const outcome = await run.then(
    (result) => ({ result, error: null }),
    (error: unknown) => ({ result: null, error }),
  );
  return { ...outcome, judgeCalls: judge.calls.length };
}

describe("a run that needs its store", () => {
  for (const kind of UNOPENABLE_STORES) {
    // Root writes through file permissions: test/e2e/needed-store.test.ts covers these cases
    // under root by running the program as another user.
    it.skipIf(runsAsRoot && failsByPermissions(kind))(
      `stops a resume before any judge call when the store has a ${kind}`,
      async () => {
        const home = newHome();
        await makeUnopenableStore({ home, kind });
        const { result, error, judgeCalls } = await runOn({ home, extra: { resume: true } });
        expect(result).toBeNull();
        expect(judgeCalls).toBe(0);
        expect(error).toBeInstanceOf(StoreError);
        const message = (error as Error).message;
        expect(message).toContain(join(home, "verdict.db"));
        expect(message).toMatch(/A resumed run reads its finished cases from this store/);
        expect(message).toMatch(/nothing was run\.$/);
        // What to do about the store itself, as the plain failure says it.
        expect(message).toMatch(/upgrade verdict|move it away|writable|VERDICT_HOME/);
      },
    );
  }

  it("stops a shard of a build's shared run before any judge call", async () => {
    const home = newHome();
    await makeUnopenableStore({ home, kind: "garbage file" });
    const judge = new MockJudge({ answers: answer });
    await expect(
      evaluate({
        testCases,
        metrics: [new ToxicityMetric({ model: judge })],
        identifier: "nightly",
        shard: "1/2",
        env: { VERDICT_HOME: home, VERDICT_RUN_GROUP: "build-17" },
        display: "none",
        handleInterrupt: false,
      }),
    ).rejects.toThrow(
      /Shard 1\/2 writes its part of the run its build's shards share \(run group "build-17"\)/,
    );
    expect(judge.calls).toHaveLength(0);
  });

  it("lets a run that does not need it go on without it, with a warning", async () => {
    const home = newHome();
    await makeUnopenableStore({ home, kind: "garbage file" });
    const judge = new MockJudge({ answers: answer });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const result = await evaluate({
        testCases,
        metrics: [new ToxicityMetric({ model: judge })],
        identifier: "nightly",
        // A shard without a run group runs a run of its own: it needs no store either.
        shard: "1/1",
        env: { VERDICT_HOME: home },
        display: "none",
        handleInterrupt: false,
      });
      expect(result.summary.status).toBe("completed");
      expect(judge.calls.length).toBeGreaterThan(0);
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(/This run goes on without the store/),
      );
    } finally {
      warn.mockRestore();
    }
  });
});
