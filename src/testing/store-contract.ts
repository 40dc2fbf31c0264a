/**
 * The behaviour every verdict store must have, as a Vitest suite: run it from your store's
 * test file so that your store is held to the same contract as verdict's own. Import from
 * `verdict/testing/store-contract` (it needs Vitest; `verdict/testing` does not).
 * @packageDocumentation
 */
import { afterEach, beforeEach, describe } from "vitest";
import type { Store } from "../store/run-store.ts";
import { describeCalibrationsContract } from "./store-contract-calibrations.ts";
import { describeClosedStoreContract } from "./store-contract-closed.ts";
import { describeJudgeBatchesContract } from "./store-contract-judge-batches.ts";
import { describeJudgeCacheContract } from "./store-contract-judge-cache.ts";
import { describeJudgeLeasesContract } from "./store-contract-judge-leases.ts";
import { describeJudgeTextsContract } from "./store-contract-judge-texts.ts";
import { describeNamesContract } from "./store-contract-names.ts";
import { describeResultsContract } from "./store-contract-results.ts";
import { describeRunsContract } from "./store-contract-runs.ts";
import { describeShardsContract } from "./store-contract-shards.ts";
import type { StoreCapabilities } from "./store-contract-support.ts";

export {
  makeRunOwner,
  makeStoredJudgeBatch,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "./store-contract-data.ts";

/** A fresh store for one test, with whatever must be removed once it is closed. */
export interface StoreUnderTest {
  store: Store;
  /** Called after the store is closed, e.g. to remove a temporary folder or schema. */
  cleanup?: (() => void | Promise<void>) | undefined;
}

/** Options of {@link describeStoreContract}. */
export interface StoreContractOptions {
  /** Shown in the suite's title, e.g. `"FileStore"`. */
  name: string;
  /**
   * Creates a fresh, empty store: called before every test, and once while the suite is
   * collected to see which optional capabilities the store has.
   */
  create: () => Promise<StoreUnderTest>;
}

/**
 * Declares the store contract as a Vitest suite: runs, results (paged and read whole),
 * owners and heartbeats, secret masking, isolation from callers, failures as `StoreError`
 * rejections, names holding NUL refused with a `ConfigError`, and, for each optional capability the store has (`shards`, `calibrations`,
 * `judgeCache`, `judgeBatches`, `leases`, `runs.getJudgeTexts`: among them, the lease of a process of this machine
 * that died taken over at once), its own tests; the groups of capabilities the store lacks
 * (`null`) are skipped.
 * @example
 * import { describeStoreContract } from "verdict/testing/store-contract";
 *
 * describeStoreContract({
 *   name: "FileStore",
 *   create: async () => {
 *     const folder = await mkdtemp(path.join(tmpdir(), "file-store-"));
 *     const store = await FileStore.open({ folder });
 *     return { store, cleanup: () => rm(folder, { recursive: true, force: true }) };
 *   },
 * });
 */
export function describeStoreContract(options: StoreContractOptions): void {
  describe(`${options.name} (store contract)`, async () => {
    const capabilities = await probeCapabilities(options);
    let underTest: StoreUnderTest | undefined;

    beforeEach(async () => {
      underTest = await options.create();
    });

    afterEach(async () => {
      const finished = underTest;
      underTest = undefined;
      if (finished === undefined) return;
      await finished.store.close();
      await finished.cleanup?.();
    });

    const current = (): Store => {
      if (underTest === undefined) throw new Error(`${options.name}: no store was created`);
      return underTest.store;
    };
    describeRunsContract(current);
    describeResultsContract(current);
    describeJudgeTextsContract(current, capabilities);
    describeShardsContract(current, capabilities);
    describeJudgeCacheContract(current, capabilities);
    describeCalibrationsContract(current, capabilities);
    describeJudgeBatchesContract(current, capabilities);
    describeNamesContract(current, capabilities);
    describeJudgeLeasesContract(current, capabilities);
    describeClosedStoreContract(current, capabilities);
  });
}

/** Which optional parts a store has: one store is created, looked at, and closed. */
async function probeCapabilities(options: StoreContractOptions): Promise<StoreCapabilities> {
  const { store, cleanup } = await options.create();
  try {
    return {
      shards: store.shards !== null,
      calibrations: store.calibrations !== null,
      judgeCache: store.judgeCache !== null,
      judgeCacheEntries: typeof store.judgeCache?.entries === "function",
      judgeBatches: store.judgeBatches !== null,
      judgeBatchList: typeof store.judgeBatches?.list === "function",
      leases: store.leases !== null,
      judgeTexts: typeof store.runs.getJudgeTexts === "function",
    };
  } finally {
    await store.close();
    await cleanup?.();
  }
}
