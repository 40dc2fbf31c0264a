import type { CalibrationReport } from "../results/calibration-report.ts";
import type { EvaluationSummary, RunStatus, TestResult } from "../results/evaluation-result.ts";

/**
 * The process that runs (or last ran) a stored run, and its last sign of life: what tells a
 * run still in progress from one whose process was killed (see `runLiveness`).
 */
export interface RunOwner {
  /** Process id on `hostname`. */
  pid: number;
  hostname: string;
  /** ISO time of the owner's last heartbeat (refreshed while the run is open). */
  heartbeatAt: string;
}

/** A stored run's header. */
export interface StoredRun {
  id: string;
  identifier: string | null;
  status: RunStatus;
  startedAt: string;
  endedAt: string | null;
  /** The run's configuration, without secrets (metric names and options, judge names, …). */
  config: Record<string, unknown>;
  /** Totals, once the run ended. */
  summary: EvaluationSummary | null;
  /**
   * Who runs it, with the last heartbeat. Stores always return it: `null` when unknown (runs
   * stored before verdict recorded owners).
   */
  owner?: RunOwner | null;
}

/** A stored test result and the fingerprint that says which inputs produced it. */
export interface StoredTestResult {
  /** Hash of the test case and the metric configuration: resume reuses a result only when it matches. */
  fingerprint: string;
  result: TestResult;
}

/** See {@link RunStore.getTestResultsVersion}. */
export interface TestResultsVersion {
  count: number;
  /** Grows with every save; 0 for results stored before versions were kept. */
  version: number;
}

/**
 * Where runs and their test results are kept. Every test result is written as soon as it
 * is known, so a run killed half-way keeps what it finished.
 */
export interface RunStore {
  startRun(run: StoredRun): void;
  /** Reopens a run (resume): status back to "running". */
  reopenRun(runId: string): void;
  /**
   * Records the run's owner and its latest heartbeat (replacing the previous owner: a resumed
   * run belongs to the process that resumed it). Changes nothing else.
   */
  heartbeatRun(options: { runId: string; owner: RunOwner }): void;
  /** Adds or replaces the result of test case `result.index`. */
  saveTestResult(runId: string, stored: StoredTestResult): void;
  finishRun(options: {
    runId: string;
    status: RunStatus;
    endedAt: string;
    summary: EvaluationSummary;
  }): void;
  /** A run by id, or the latest run with that identifier. */
  getRun(idOrIdentifier: string): StoredRun | null;
  /**
   * Test results of a run, in index order. With `changedAfter`, only those saved or replaced
   * after that {@link TestResultsVersion.version}: what a viewer of a running run reads again.
   */
  getTestResults(runId: string, options?: { changedAfter?: number }): StoredTestResult[];
  /**
   * How many results a run has, and a number that grows whenever one of them is saved or
   * replaced (`{ count: 0, version: 0 }` for an unknown run). A cheap question, so that a
   * viewer can poll a running run and read again only what changed.
   */
  getTestResultsVersion(runId: string): TestResultsVersion;
  /** Runs, newest first. */
  listRuns(options?: { limit?: number }): StoredRun[];
  /**
   * Keeps a calibration report (`verdict calibrate`), linked to the run that scored its rows
   * (`report.runId`, which must be stored). Refuses a second report with the same id.
   */
  saveCalibration(report: CalibrationReport): void;
  /** A calibration report by id, or `null`. */
  getCalibration(id: string): CalibrationReport | null;
  /**
   * Calibration reports, newest first (by `createdAt`, then by saving order); with `runId`,
   * only those of that run.
   */
  listCalibrations(options?: { runId?: string; limit?: number }): CalibrationReport[];
  close(): void;
}

/** A cached judge answer. */
export interface CachedJudgeAnswer {
  text: string | null;
  object: unknown;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
}

/**
 * Judge answers keyed by a hash of everything that changes the answer (model, settings,
 * prompt, images, schema, trial index). Only successful answers are stored.
 */
export interface JudgeCache {
  get(key: string): CachedJudgeAnswer | undefined;
  set(key: string, answer: CachedJudgeAnswer): void;
}

/**
 * A provider batch of judge requests (OpenAI Batch, Anthropic Message Batches) that a run
 * submitted: kept so that a run killed while it waits resumes polling the batch instead of
 * submitting (and paying for) its requests again.
 */
export interface StoredJudgeBatch {
  /** The provider's id of the batch, e.g. `"batch_abc123"`. */
  id: string;
  /** Who runs it, e.g. `"openai.batch"`: with `id`, what identifies the batch. */
  provider: string;
  /** The name of the judge whose requests it holds, e.g. `"openai:gpt-4.1"`. */
  judge: string;
  /** The judge cache keys of its requests, which are also its lines' ids. */
  requestKeys: string[];
  /** `"open"`: submitted, its results not read yet; `"closed"`: read, or given up. */
  state: "open" | "closed";
  /** The provider's last word on it: `validating`, `in_progress`, `completed`, `expired`, … */
  providerStatus: string;
  /** ISO time it was submitted. */
  createdAt: string;
  /** ISO time of its last change. */
  updatedAt: string;
}

/**
 * The judge batches a store keeps (see {@link StoredJudgeBatch}). Like the judge cache, it
 * belongs to no run: any run that asks one of a batch's requests again picks the batch up.
 */
export interface JudgeBatchLog {
  /** Adds a batch, or replaces the one with the same `provider` and `id`. */
  save(batch: StoredJudgeBatch): void;
  /** The open batches, oldest first. */
  listOpen(): StoredJudgeBatch[];
}
