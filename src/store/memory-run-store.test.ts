import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "./memory-run-store.ts";
import { describeRunStoreContract, makeStoredRun } from "./run-store-contract.ts";

describeRunStoreContract({
  name: "MemoryRunStore",
  create: () => ({ store: new MemoryRunStore() }),
});

describe("MemoryRunStore", () => {
  it("shares nothing between two stores", () => {
    const first = new MemoryRunStore();
    const second = new MemoryRunStore();
    first.startRun(makeStoredRun());
    first.judgeCache.set("key", {
      text: "t",
      object: undefined,
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
    });
    expect(second.getRun("run-1")).toBeNull();
    expect(second.judgeCache.get("key")).toBeUndefined();
  });
});
