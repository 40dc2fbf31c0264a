/** What the groups of the store contract share: the store of the running test, its parts. */
import type { CachedJudgeAnswer, Store } from "../store/run-store.ts";

/** The store of the test running now (created afresh before each test). */
export type CurrentStore = () => Store;

/** Which optional parts the store under test has: the groups of the others are skipped. */
export interface StoreCapabilities {
  shards: boolean;
  calibrations: boolean;
  judgeCache: boolean;
  /** `judgeCache.entries`, which `verdict store export` needs. */
  judgeCacheEntries: boolean;
  judgeBatches: boolean;
  /** `judgeBatches.list`, which `verdict store export` needs. */
  judgeBatchList: boolean;
  /** `leases`, which processes sharing the judge cache claim requests with. */
  leases: boolean;
  /** `runs.getJudgeTexts`: the store keeps the judge's prompts and answers. */
  judgeTexts: boolean;
}

type OptionalPart = "shards" | "calibrations" | "judgeCache" | "judgeBatches";

/** The store's `name` part, which it had when the suite was collected. */
export function requirePart<Name extends OptionalPart>(
  store: Store,
  name: Name,
): NonNullable<Store[Name]> {
  const part = store[name];
  if (part === null) {
    throw new Error(
      `The store has no "${name}" in this test, but had one when the suite was collected: ` +
        "every store that create() returns must have the same parts.",
    );
  }
  return part as NonNullable<Store[Name]>;
}

/** A cached text answer without usage or cost. */
export function textAnswer(text: string): CachedJudgeAnswer {
  return { text, object: undefined, inputTokens: null, outputTokens: null, costUsd: null };
}
