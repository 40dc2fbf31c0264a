/**
 * Moved to `src/testing/store-contract.ts` (exported as `verdict/testing/store-contract`): this
 * re-export keeps the tests that still import the helpers from here working until they move.
 */
export {
  /** @deprecated Import `describeStoreContract` from `../testing/store-contract.ts`. */
  describeStoreContract as describeRunStoreContract,
  describeStoreContract,
  makeRunOwner,
  makeStoredJudgeBatch,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
  type StoreContractOptions,
  type StoreUnderTest,
} from "../testing/store-contract.ts";
