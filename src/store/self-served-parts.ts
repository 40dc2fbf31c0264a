import type { CalibrationReport } from "../results/calibration-report.ts";
import type { JudgeText } from "../results/judge-text.ts";
import type {
  FinishRunOptions,
  RunOwner,
  StartRunPartOptions,
  StoreCalibrations,
  StoredRun,
  StoredTestResult,
  StoreRuns,
  StoreShards,
  TestResultsVersion,
} from "./run-store.ts";

/**
 * A store class that serves its runs, shard parts and calibrations itself (`store.runs ===
 * store`), its shard methods being its run methods with a `shard`: what the in-memory and the
 * SQLite stores share.
 */
export abstract class SelfServedParts implements StoreRuns, StoreShards, StoreCalibrations {
  abstract startRun(run: StoredRun): Promise<void>;
  abstract reopenRun(runId: string, options?: { shard?: number }): Promise<void>;
  abstract heartbeatRun(options: { runId: string; owner: RunOwner; shard?: number }): Promise<void>;
  abstract saveTestResult(runId: string, stored: StoredTestResult): Promise<void>;
  abstract finishRun(options: FinishRunOptions & { shard?: number }): Promise<void>;
  abstract getRun(idOrIdentifier: string): Promise<StoredRun | null>;
  abstract getTestResults(
    runId: string,
    options?: { changedAfter?: number; afterIndex?: number; limit?: number },
  ): Promise<StoredTestResult[]>;
  abstract getTestResultsVersion(runId: string): Promise<TestResultsVersion>;
  abstract listRuns(options?: { limit?: number }): Promise<StoredRun[]>;
  abstract getJudgeTexts(runId: string, hashes: readonly string[]): Promise<JudgeText[]>;
  abstract startRunPart(options: StartRunPartOptions): Promise<void>;
  abstract saveCalibration(report: CalibrationReport): Promise<void>;
  abstract getCalibration(id: string): Promise<CalibrationReport | null>;
  abstract listCalibrations(options?: {
    runId?: string;
    limit?: number;
  }): Promise<CalibrationReport[]>;

  async reopenRunPart(runId: string, shard: number): Promise<void> {
    return this.reopenRun(runId, { shard });
  }

  async heartbeatRunPart(options: {
    runId: string;
    owner: RunOwner;
    shard: number;
  }): Promise<void> {
    return this.heartbeatRun(options);
  }

  async finishRunPart(options: FinishRunOptions & { shard: number }): Promise<void> {
    return this.finishRun(options);
  }

  /** The store's runs: the store itself. */
  get runs(): StoreRuns {
    return this;
  }

  /** The store's sharded runs: the store itself. */
  get shards(): StoreShards {
    return this;
  }

  /** The store's calibration reports: the store itself. */
  get calibrations(): StoreCalibrations {
    return this;
  }
}
