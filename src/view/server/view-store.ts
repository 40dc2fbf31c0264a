import type { CalibrationReport } from "../../results/calibration-report.ts";
import type { StoredRun, StoredTestResult, TestResultsVersion } from "../../store/run-store.ts";

/** A value, or a promise of it: what a synchronous or an asynchronous store returns. */
export type Awaitable<Value> = Value | Promise<Value>;

/**
 * The reads the dashboard makes of a store. The server awaits every one, so both today's
 * synchronous `RunStore`s and a store that answers with promises (a database over the
 * network) serve it.
 */
export interface ViewStore {
  getRun(idOrIdentifier: string): Awaitable<StoredRun | null>;
  listRuns(options?: { limit?: number }): Awaitable<StoredRun[]>;
  getTestResults(runId: string, options?: { changedAfter?: number }): Awaitable<StoredTestResult[]>;
  getTestResultsVersion(runId: string): Awaitable<TestResultsVersion>;
  getCalibration(id: string): Awaitable<CalibrationReport | null>;
  listCalibrations(options?: { runId?: string; limit?: number }): Awaitable<CalibrationReport[]>;
}
