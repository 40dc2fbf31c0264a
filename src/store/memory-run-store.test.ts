import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { testResultArbitrary } from "../../test/fixtures/result-arbitraries.ts";
import { describeStoreContract, makeStoredRun } from "../testing/store-contract.ts";
import { MemoryRunStore } from "./memory-run-store.ts";

describeStoreContract({
  name: "MemoryRunStore",
  create: async () => ({ store: new MemoryRunStore() }),
});

describe("MemoryRunStore", () => {
  it("shares nothing between two stores", async () => {
    const first = new MemoryRunStore();
    const second = new MemoryRunStore();
    await first.runs.startRun(makeStoredRun());
    await first.judgeCache.set("key", {
      text: "t",
      object: undefined,
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
    });
    expect(await second.runs.getRun("run-1")).toBeNull();
    expect(await second.judgeCache.get("key")).toBeUndefined();
  });

  it("keeps every field of generated results (odd text, nested spans, optional fields)", async () => {
    await using store = new MemoryRunStore();
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
});
