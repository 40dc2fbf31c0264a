import type { CalibrationReport } from "../../results/calibration-report.ts";
import type { JudgeText } from "../../results/judge-text.ts";
import type {
  Store,
  StoredRun,
  StoredTestResult,
  TestResultsVersion,
} from "../../store/run-store.ts";

/** The reads the dashboard makes of a store: its runs, and its calibrations when it keeps them. */
export interface ViewStore {
  getRun(idOrIdentifier: string): Promise<StoredRun | null>;
  listRuns(options?: { limit?: number }): Promise<StoredRun[]>;
  getTestResults(runId: string, options?: { changedAfter?: number }): Promise<StoredTestResult[]>;
  getTestResultsVersion(runId: string): Promise<TestResultsVersion>;
  /** The judge prompts and answers a run keeps, by hash (none from a store without them). */
  getJudgeTexts?(runId: string, hashes: readonly string[]): Promise<JudgeText[]>;
  getCalibration(id: string): Promise<CalibrationReport | null>;
  listCalibrations(options?: { runId?: string; limit?: number }): Promise<CalibrationReport[]>;
}

/** What the dashboard reads of a store: a store without calibrations shows none. */
export function toViewStore(store: Store): ViewStore {
  const { runs, calibrations } = store;
  return {
    getRun: (idOrIdentifier) => runs.getRun(idOrIdentifier),
    listRuns: (options) => runs.listRuns(options),
    getTestResults: (runId, options) => runs.getTestResults(runId, options),
    getTestResultsVersion: (runId) => runs.getTestResultsVersion(runId),
    getJudgeTexts: async (runId, hashes) => (await runs.getJudgeTexts?.(runId, hashes)) ?? [],
    getCalibration: async (id) => (calibrations === null ? null : calibrations.getCalibration(id)),
    listCalibrations: async (options) =>
      calibrations === null ? [] : calibrations.listCalibrations(options),
  };
}
