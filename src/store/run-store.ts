import type { CalibrationReport } from "../results/calibration-report.ts";
import type { EvaluationSummary, RunStatus, TestResult } from "../results/evaluation-result.ts";
import type { JudgeText } from "../results/judge-text.ts";
import type { JudgeTokenLogprob } from "../results/judge-token-logprob.ts";

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
   * ({@link StoreShards.startRunPart}): how many shards, and each started shard's part in shard
   * order. Absent for a run of one process.
   */
  shards?: { count: number; parts: StoredRunPart[] };
}

/** A stored test result and the fingerprint that says which inputs produced it. */
export interface StoredTestResult {
  /** Hash of the test case and the metric configuration: resume reuses a result only when it matches. */
  fingerprint: string;
  result: TestResult;
  /**
   * The texts of the judge prompts and answers its calls name by hash (`promptHash`,
   * `answerHash`): `saveTestResult` keeps each once per run, apart from the result, and
   * `getTestResults` never returns them (read them with {@link StoreRuns.getJudgeTexts}), so
   * that reading a run's results does not read its prompts.
   */
  judgeTexts?: JudgeText[] | undefined;
}

/** See {@link StoreRuns.getTestResultsVersion}. */
export interface TestResultsVersion {
  count: number;
  /** Grows with every save; 0 for results stored before versions were kept. */
  version: number;
}

/** Options of {@link StoreShards.startRunPart}: the run, and the shard's part of it. */
export interface StartRunPartOptions {
  run: StoredRun;
  part: { shard: RunShard; startedAt: string; owner: RunOwner | null };
}

/** Options of {@link StoreRuns.finishRun}. */
export interface FinishRunOptions {
  runId: string;
  status: RunStatus;
  endedAt: string;
  summary: EvaluationSummary;
}

/**
 * The runs of a store and their test results. Every test result is written as soon as it is
 * known, so a run killed half-way keeps what it finished. Every method returns a promise.
 */
export interface StoreRuns {
  /** Stores a new run's header as given (an imported run keeps its status and summary). */
  startRun(run: StoredRun): Promise<void>;
  /** Reopens a run (resume): status back to "running", its end and summary cleared (`null`). */
  reopenRun(runId: string): Promise<void>;
  /**
   * Records the run's owner and its latest heartbeat (replacing the previous owner: a resumed
   * run belongs to the process that resumed it). Changes nothing else.
   */
  heartbeatRun(options: { runId: string; owner: RunOwner }): Promise<void>;
  /** Adds or replaces the result of test case `result.index`. */
  saveTestResult(runId: string, stored: StoredTestResult): Promise<void>;
  /** Ends a run with its totals. */
  finishRun(options: FinishRunOptions): Promise<void>;
  /** A run by id, or the latest run with that identifier. */
  getRun(idOrIdentifier: string): Promise<StoredRun | null>;
  /**
   * Test results of a run, in index order. With `changedAfter`, only those saved or replaced
   * after that {@link TestResultsVersion.version}: what a viewer of a running run reads again.
   * With `afterIndex` and `limit`, one page of them (indices above `afterIndex`, at most
   * `limit`): how a large run is read without holding it whole.
   */
  getTestResults(
    runId: string,
    options?: { changedAfter?: number; afterIndex?: number; limit?: number },
  ): Promise<StoredTestResult[]>;
  /**
   * How many results a run has, and a number that grows whenever one of them is saved or
   * replaced (`{ count: 0, version: 0 }` for an unknown run). A cheap question, so that a
   * viewer can poll a running run and read again only what changed.
   */
  getTestResultsVersion(runId: string): Promise<TestResultsVersion>;
  /** Runs, newest first. */
  listRuns(options?: { limit?: number }): Promise<StoredRun[]>;
  /**
   * The judge texts of run `runId` among `hashes` (those it keeps; in no particular order):
   * what the dashboard shows behind a judge call. Optional for stores of your own: without it,
   * the texts given to `saveTestResult` are not kept, and only their hashes are.
   */
  getJudgeTexts?(runId: string, hashes: readonly string[]): Promise<JudgeText[]>;
}

/**
 * The parts of runs that shards on several processes or machines write into together (CI
 * shards of one build): each shard has its own status, owner and totals.
 */
export interface StoreShards {
  /**
   * Starts shard `part.shard.index` of run `run.id`: the first shard to start creates the run
   * from `run` (its `shards` ignored), the others join it, so shards on any number of machines
   * write their cases into one run. A shard started again (a re-run CI job) starts its part
   * afresh. The run is `running` until `runs.finishRun` ends it as a whole.
   */
  startRunPart(options: StartRunPartOptions): Promise<void>;
  /** Reopens a shard's part (resume): the part and the run back to "running". */
  reopenRunPart(runId: string, shard: number): Promise<void>;
  /** Records the owner and latest heartbeat of a shard's part. */
  heartbeatRunPart(options: { runId: string; owner: RunOwner; shard: number }): Promise<void>;
  /** Ends only this shard's part, with its own totals. */
  finishRunPart(options: FinishRunOptions & { shard: number }): Promise<void>;
}

/** Calibration reports (`verdict calibrate`), each linked to the run that scored its rows. */
export interface StoreCalibrations {
  /**
   * Keeps a calibration report, linked to the run that scored its rows (`report.runId`, which
   * must be stored). Refuses a second report with the same id.
   */
  saveCalibration(report: CalibrationReport): Promise<void>;
  /** A calibration report by id, or `null`. */
  getCalibration(id: string): Promise<CalibrationReport | null>;
  /**
   * Calibration reports, newest first (by `createdAt`, then by saving order); with `runId`,
   * only those of that run.
   */
  listCalibrations(options?: { runId?: string; limit?: number }): Promise<CalibrationReport[]>;
}

/**
 * Where verdict keeps runs, their test results, the judge cache and what goes with them: one
 * object whose parts are capabilities. `runs` is the only part every store has; a part a
 * store lacks is `null` (a store without `judgeCache` runs every judge call, one without
 * `shards` refuses sharded runs, …). Every method returns a promise.
 * @example
 * await using store = await SqliteRunStore.open(); // verdict/stores: .verdict/verdict.db
 * const run = await store.runs.getRun("nightly");
 */
export interface Store {
  readonly runs: StoreRuns;
  /** Runs that several shards write into together; `null`: sharded runs are stored apart. */
  readonly shards: StoreShards | null;
  /** Calibration reports; `null`: `verdict calibrate` keeps none. */
  readonly calibrations: StoreCalibrations | null;
  /** Judge answers reused across runs; `null`: every judge call is made. */
  readonly judgeCache: JudgeCache | null;
  /** Provider batches in flight, so a killed batch run resumes them; `null`: not kept. */
  readonly judgeBatches: JudgeBatchLog | null;
  /**
   * Leases that make one of several processes sharing the judge cache ask the judge while the
   * others wait for its answer; `null`: each process asks on its own.
   */
  readonly leases: JudgeLeases | null;
  /** Closes the store (idempotent); later calls fail with a `StoreError`. */
  close(): Promise<void>;
  /** `await using store = …` closes it. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** A cached judge answer. */
export interface CachedJudgeAnswer {
  text: string | null;
  object: unknown;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  /**
   * The answer's token log-probabilities, when its request asked for them and the judge gave
   * them; absent otherwise (and in entries stored before verdict kept them).
   */
  logprobs?: JudgeTokenLogprob[];
}

/**
 * Judge answers keyed by a hash of everything that changes the answer (model, settings,
 * prompt, images, schema, trial index). Only successful answers are stored.
 */
export interface JudgeCache {
  get(key: string): Promise<CachedJudgeAnswer | undefined>;
  /**
   * Stores an answer; it also ends any lease on the key ({@link JudgeLeases}). `createdAt`
   * keeps an imported entry's time (default: now).
   */
  set(key: string, answer: CachedJudgeAnswer, options?: { createdAt?: string }): Promise<void>;
  /**
   * Stored entries in key order, `limit` at a time after key `after`: what `verdict store
   * export` copies. Optional for caches of your own.
   */
  entries?(options: { after?: string | undefined; limit: number }): Promise<JudgeCacheEntry[]>;
}

/** One stored judge answer, with its key and when it was stored. */
export interface JudgeCacheEntry {
  key: string;
  answer: CachedJudgeAnswer;
  /** ISO time the answer was stored. */
  createdAt: string;
}

/** What claiming a key resolves with (see `claimWithLease`). */
export type JudgeCacheClaim = { answer: CachedJudgeAnswer } | { lease: JudgeCacheLease };

/** The right to ask the judge for one key, kept alive until released. */
export interface JudgeCacheLease {
  /** Ends the lease (no answer was stored): a waiting process takes over at once. Idempotent. */
  release(): Promise<void>;
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
  save(batch: StoredJudgeBatch): Promise<void>;
  /** The open batches, oldest first. */
  listOpen(): Promise<StoredJudgeBatch[]>;
  /**
   * Every batch, open or closed, in the order they were first saved: what `verdict store
   * export` copies. Optional for logs of your own.
   */
  list?(): Promise<StoredJudgeBatch[]>;
}

/**
 * Leases on judge cache keys, each taken or refused in one step against the store's own clock,
 * so that of several processes asking the same request at once one pays and the others wait
 * for its answer (see `claimWithLease`).
 */
export interface JudgeLeases {
  /** How long a lease lives unless renewed (it is renewed while held). @default 30000 */
  readonly leaseMs?: number;
  /**
   * The cached answer; else takes the lease on `key` for `leaseMs` when nobody holds a live
   * one (`{ leased: true }`), or reports that another holder does (`{ leased: false }`, with
   * that `holder` when known: a claimant that finds it is a process of its own machine that
   * died takes the lease over at once, see {@link JudgeLeases.takeOver}).
   */
  tryClaim(
    key: string,
    holder: string,
    leaseMs: number,
  ): Promise<{ answer: CachedJudgeAnswer } | { leased: boolean; holder?: string | undefined }>;
  /**
   * Gives the lease on `key` to `holder` for `leaseMs` in one step, only if `from` still holds
   * it (whether expired or not); resolves whether it did. How a claimant takes over at once the
   * lease of a process of its machine that died (SIGKILL, a crash), instead of waiting for the
   * lease to expire. Optional: without it (or without `holder` from `tryClaim`), such leases
   * are waited out; the store contract expects both of a store that has leases.
   */
  takeOver?(key: string, from: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Extends a lease this holder still holds. */
  renew(key: string, holder: string, leaseMs: number): Promise<void>;
  /** Ends a lease this holder holds; nothing when it holds none. */
  release(key: string, holder: string): Promise<void>;
  /**
   * Resolves when the key's answer is stored or its lease released, or after `timeoutMs`
   * (whichever comes first): how a waiting process learns at once that it can look again. It
   * may also resolve early (the caller then simply looks again). Optional: without it, a
   * waiting process polls.
   */
  waitForKey?(
    key: string,
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<void>;
}
