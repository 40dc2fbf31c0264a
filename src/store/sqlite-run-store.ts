import path from "node:path";
import { createVerdictHome } from "../config/create-verdict-home.ts";
import { StoreError } from "../errors/store-error.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import type { JudgeText } from "../results/judge-text.ts";
import type { redactSecrets, redactSecretText } from "../secrets/redact-secrets.ts";
import type {
  FinishRunOptions,
  JudgeBatchLog,
  JudgeCache,
  JudgeLeases,
  RunOwner,
  StartRunPartOptions,
  Store,
  StoreCalibrations,
  StoredRun,
  StoredTestResult,
  StoreShards,
  TestResultsVersion,
} from "./run-store.ts";
import { SelfServedParts } from "./self-served-parts.ts";
import { SqliteAccess } from "./sqlite-access.ts";
import { createSqliteCalibrations } from "./sqlite-calibrations.ts";
import { createSqliteJudgeBatchLog, createSqliteJudgeCache } from "./sqlite-judge-cache.ts";
import { createSqliteJudgeLeases } from "./sqlite-judge-leases.ts";
import { createSqliteRuns, type SqliteRuns } from "./sqlite-runs.ts";
import { createSqliteShards } from "./sqlite-shards.ts";

/** The schema version this build of verdict writes (`PRAGMA user_version`). */
export { SCHEMA_VERSION } from "./sqlite-schema.ts";

/** Options of {@link SqliteRunStore}. */
export interface SqliteRunStoreOptions {
  /** The database file; created when missing (its folder must exist). */
  path: string;
  /**
   * How long a write waits for another process (a Vitest worker, a CI shard) holding the lock.
   * @default 5000
   */
  busyTimeoutMs?: number | undefined;
  /**
   * How long a lease on a judge request lives unless renewed (see `JudgeCache.claim`): the
   * processes sharing the file (Vitest workers, shards) ask each request once.
   * @default 30000
   */
  leaseMs?: number | undefined;
}

/** Options of {@link SqliteRunStore.open}. */
export interface OpenSqliteRunStoreOptions {
  /**
   * The folder that holds `verdict.db`; created when missing.
   * @default env.VERDICT_HOME, else `<cwd>/.verdict`
   */
  home?: string | undefined;
  /** @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Where a relative `home` or `VERDICT_HOME` is resolved from. @default process.cwd() */
  cwd?: string | undefined;
  /** @default 5000 */
  busyTimeoutMs?: number | undefined;
}

/** The file name of the database inside the verdict home folder. */
export const STORE_FILE_NAME = "verdict.db";

/**
 * The default store: runs, test results and cached judge answers in one SQLite file, through
 * Node's built-in `node:sqlite` (no native add-on). Several processes may write the same file
 * at once (WAL journal, busy timeout). Every failure is a `StoreError` that names the file and
 * says what to do. Everything written (configurations, results, summaries, cached answers)
 * has its secrets masked first ({@link redactSecrets}, {@link redactSecretText}: configured
 * key values and key patterns), so API keys never reach the file or its WAL.
 * @example
 * const store = SqliteRunStore.open(); // .verdict/verdict.db, or $VERDICT_HOME/verdict.db
 * const run = await store.runs.getRun("nightly");
 * const answer = await store.judgeCache.get(key);
 * await store.close();
 */
export class SqliteRunStore extends SelfServedParts implements Store {
  /** The database file. */
  readonly path: string;
  /** Judge answers, kept in the same file. */
  readonly judgeCache: JudgeCache;
  /** Judge batches in flight, kept in the same file. */
  readonly judgeBatches: JudgeBatchLog;
  /** Leases on judge cache keys, for the processes that share the file. */
  readonly leases: JudgeLeases;
  private readonly access: SqliteAccess;
  private readonly storedRuns: SqliteRuns;
  private readonly storedShards: Pick<StoreShards, "startRunPart">;
  private readonly storedCalibrations: StoreCalibrations;

  /**
   * Opens the store in the default location, creating the folder (with a `.gitignore` that
   * keeps the database out of git):
   * `$VERDICT_HOME/verdict.db` when `VERDICT_HOME` is set, else `<cwd>/.verdict/verdict.db`.
   * @example
   * const store = SqliteRunStore.open({ home: "/var/lib/evals" });
   */
  static open(options: OpenSqliteRunStoreOptions = {}): SqliteRunStore {
    const env = options.env ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    const home = path.resolve(cwd, options.home ?? (env.VERDICT_HOME?.trim() || ".verdict"));
    const file = path.join(home, STORE_FILE_NAME);
    try {
      createVerdictHome({ home });
    } catch (error) {
      throw new StoreError(
        `Could not create the folder of the verdict store ${file}: ${(error as Error).message}. ` +
          "Make its parent writable, or set VERDICT_HOME to another folder.",
        { cause: error },
      );
    }
    return new SqliteRunStore({ path: file, busyTimeoutMs: options.busyTimeoutMs });
  }

  constructor(options: SqliteRunStoreOptions) {
    super();
    this.path = options.path === ":memory:" ? options.path : path.resolve(options.path);
    this.access = new SqliteAccess({ path: this.path, busyTimeoutMs: options.busyTimeoutMs });
    this.storedRuns = createSqliteRuns(this.access);
    this.storedShards = createSqliteShards(this.access);
    this.storedCalibrations = createSqliteCalibrations(this.access);
    this.leases = createSqliteJudgeLeases(this.access, options.leaseMs ?? 30_000);
    this.judgeCache = createSqliteJudgeCache(this.access);
    this.judgeBatches = createSqliteJudgeBatchLog(this.access);
  }

  startRun(run: StoredRun): Promise<void> {
    return this.storedRuns.startRun(run);
  }

  startRunPart(options: StartRunPartOptions): Promise<void> {
    return this.storedShards.startRunPart(options);
  }

  reopenRun(runId: string, options: { shard?: number } = {}): Promise<void> {
    return this.storedRuns.reopenRun(runId, options);
  }

  heartbeatRun(options: { runId: string; owner: RunOwner; shard?: number }): Promise<void> {
    return this.storedRuns.heartbeatRun(options);
  }

  saveTestResult(runId: string, stored: StoredTestResult): Promise<void> {
    return this.storedRuns.saveTestResult(runId, stored);
  }

  finishRun(options: FinishRunOptions & { shard?: number }): Promise<void> {
    return this.storedRuns.finishRun(options);
  }

  getRun(idOrIdentifier: string): Promise<StoredRun | null> {
    return this.storedRuns.getRun(idOrIdentifier);
  }

  getTestResults(
    runId: string,
    options: { changedAfter?: number; afterIndex?: number; limit?: number } = {},
  ): Promise<StoredTestResult[]> {
    return this.storedRuns.getTestResults(runId, options);
  }

  getTestResultsVersion(runId: string): Promise<TestResultsVersion> {
    return this.storedRuns.getTestResultsVersion(runId);
  }

  getJudgeTexts(runId: string, hashes: readonly string[]): Promise<JudgeText[]> {
    return this.storedRuns.getJudgeTexts(runId, hashes);
  }

  listRuns(options: { limit?: number } = {}): Promise<StoredRun[]> {
    return this.storedRuns.listRuns(options);
  }

  saveCalibration(report: CalibrationReport): Promise<void> {
    return this.storedCalibrations.saveCalibration(report);
  }

  getCalibration(id: string): Promise<CalibrationReport | null> {
    return this.storedCalibrations.getCalibration(id);
  }

  listCalibrations(options: { runId?: string; limit?: number } = {}): Promise<CalibrationReport[]> {
    return this.storedCalibrations.listCalibrations(options);
  }

  /** Closes the file. Closing twice is harmless; any other call afterwards throws a StoreError. */
  async close(): Promise<void> {
    this.closeNow();
  }

  /** Closes the file at once (for code that cannot wait, e.g. an exit handler). */
  closeNow(): void {
    this.access.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
