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

/** Which part of a run split over processes or machines (CI shards) one process writes. */
export interface RunShard {
  /** From 1 to `count`. */
  index: number;
  count: number;
}

/** One shard's part of a sharded run: its own status, totals and owner. */
export interface StoredRunPart {
  /** The shard's index, from 1 to the run's shard count. */
  shard: number;
  status: RunStatus;
  startedAt: string;
  endedAt: string | null;
  /** The shard's own totals, once it ended. */
  summary: EvaluationSummary | null;
  owner: RunOwner | null;
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
   * stored before verdict recorded owners). For a sharded run: the owner of its running part
   * heard from least recently (the one most likely gone), else of its latest part.
   */
  owner?: RunOwner | null;
  /**
   * A run that shards on several processes or machines write into together
   * ({@link RunStore.startRunPart}): how many shards, and each started shard's part in shard
   * order. Absent for a run of one process.
   */
  shards?: { count: number; parts: StoredRunPart[] };
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

/** Options of {@link RunStore.startRunPart}: the run, and the shard's part of it. */
export interface StartRunPartOptions {
  run: StoredRun;
  part: { shard: RunShard; startedAt: string; owner: RunOwner | null };
}

/** Options of {@link RunStore.finishRun}. */
export interface FinishRunOptions {
  runId: string;
  status: RunStatus;
  endedAt: string;
  summary: EvaluationSummary;
  /** Ends only this shard's part. */
  shard?: number;
}

/**
 * Where runs and their test results are kept. Every test result is written as soon as it
 * is known, so a run killed half-way keeps what it finished.
 */
export interface RunStore {
  /** Stores a new run's header as given (an imported run keeps its status and summary). */
  startRun(run: StoredRun): void;
  /**
   * Starts shard `part.shard.index` of run `run.id`: the first shard to start creates the run
   * from `run` (its `shards` ignored), the others join it, so shards on any number of machines
   * write their cases into one run. A shard started again (a re-run CI job) starts its part
   * afresh. The run is `running` until {@link finishRun} ends it as a whole.
   */
  startRunPart(options: StartRunPartOptions): void;
  /** Reopens a run (resume): status back to "running"; with `shard`, that shard's part too. */
  reopenRun(runId: string, options?: { shard?: number }): void;
  /**
   * Records the run's owner and its latest heartbeat (replacing the previous owner: a resumed
   * run belongs to the process that resumed it); with `shard`, of that shard's part. Changes
   * nothing else.
   */
  heartbeatRun(options: { runId: string; owner: RunOwner; shard?: number }): void;
  /** Adds or replaces the result of test case `result.index`. */
  saveTestResult(runId: string, stored: StoredTestResult): void;
  /** Ends a run with its totals; with `shard`, ends only that shard's part. */
  finishRun(options: FinishRunOptions): void;
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
  /**
   * Stores an answer; it also ends any lease on the key ({@link JudgeCache.claim}). `createdAt`
   * keeps an imported entry's time (default: now).
   */
  set(key: string, answer: CachedJudgeAnswer, options?: { createdAt?: string }): void;
  /**
   * Stored entries in key order, `limit` at a time after key `after`: what `verdict store
   * export` copies. Optional for caches of your own.
   */
  entries?(options: { after?: string | undefined; limit: number }): JudgeCacheEntry[];
  /**
   * For a cache that several processes or machines share: the cached answer, or a lease that
   * makes this caller the one to ask the judge (then `set` the answer, or `release` the lease
   * when there is none). While another holds a live lease on the key, waits (polling, without
   * blocking the event loop) for its answer, or for its lease to expire (a crashed holder)
   * and takes over. Two processes asking the same request at once so pay for it once.
   */
  claim?(key: string, options?: { signal?: AbortSignal | undefined }): Promise<JudgeCacheClaim>;
}

/** One stored judge answer, with its key and when it was stored. */
export interface JudgeCacheEntry {
  key: string;
  answer: CachedJudgeAnswer;
  /** ISO time the answer was stored. */
  createdAt: string;
}

/** What {@link JudgeCache.claim} resolves with. */
export type JudgeCacheClaim = { answer: CachedJudgeAnswer } | { lease: JudgeCacheLease };

/** The right to ask the judge for one key, kept alive until released. */
export interface JudgeCacheLease {
  /** Ends the lease (no answer was stored): a waiting process takes over at once. Idempotent. */
  release(): void;
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
  /**
   * Every batch, open or closed, in the order they were first saved: what `verdict store
   * export` copies. Optional for logs of your own.
   */
  list?(): StoredJudgeBatch[];
}
