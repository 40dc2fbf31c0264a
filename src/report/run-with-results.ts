import type { TestResult } from "../results/evaluation-result.ts";
import type { StoredRun } from "../store/run-store.ts";

/** A stored run and its test results. */
export interface RunWithResults {
  run: StoredRun;
  results: TestResult[];
}
