import type { StoreError } from "../errors/store-error.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import type { JudgeText } from "../results/judge-text.ts";
import { redactSecrets } from "../secrets/redact-secrets.ts";
import { checkOwner } from "./check-owner.ts";
import { judgeTextHashesToRead, judgeTextsToStore } from "./judge-texts.ts";
import { checkResultsPage, pageOf } from "./results-page.ts";
import { checkRunPart, checkShardJoins, shardedRunOwner } from "./run-shards.ts";
import type {
  FinishRunOptions,
  JudgeBatchLog,
  JudgeCache,
  RunOwner,
  StartRunPartOptions,
  Store,
  StoredJudgeBatch,
  StoredRun,
  StoredRunPart,
  StoredTestResult,
  TestResultsVersion,
} from "./run-store.ts";
import { SelfServedParts } from "./self-served-parts.ts";
import { storeFailure } from "./store-failure.ts";
import { fromKeptAnswer, type KeptJudgeAnswer, toKeptAnswer } from "./stored-logprobs.ts";
import { checkCalibrationNames, checkRunNames } from "./stored-names.ts";

interface RunEntry {
  /** The header, without `shards`. */
  run: StoredRun;
  /** Order of startRun calls: breaks ties between runs started at the same instant. */
  sequence: number;
  /** Each result with the version its save took. */
  results: Map<number, { stored: StoredTestResult; version: number }>;
  /** The version of the latest save. */
  version: number;
  /** For a sharded run: how many shards, and each started shard's part. */
  shards: { count: number; parts: Map<number, StoredRunPart> } | null;
  /** The run's judge texts by hash, each once. */
  judgeTexts: Map<string, string>;
}

function isNewer(left: RunEntry, right: RunEntry): boolean {
  if (left.run.startedAt !== right.run.startedAt) return left.run.startedAt > right.run.startedAt;
  return left.sequence > right.sequence;
}

/**
 * A {@link RunStore} and judge cache kept in memory, for tests: behaves like
 * `SqliteRunStore` (same ordering, same errors, secrets masked in everything written) without
 * a file. Values are deep-copied in and out, so mutating an object after saving it, or an
 * object read back, never changes what is stored.
 * @example
 * const store = new MemoryRunStore();
 * await evaluate({ testCases, metrics, store });
 * expect(await store.runs.listRuns()).toHaveLength(1);
 */
export class MemoryRunStore extends SelfServedParts implements Store {
  /** Judge answers, kept in the same memory. */
  readonly judgeCache: JudgeCache;
  /** Judge batches in flight, kept in the same memory. */
  readonly judgeBatches: JudgeBatchLog;
  /** No leases: one process holds the memory, and its scheduler shares calls in flight. */
  readonly leases = null;
  private readonly entries = new Map<string, RunEntry>();
  private readonly cache = new Map<string, { answer: KeptJudgeAnswer; createdAt: string }>();
  private readonly reports = new Map<string, { report: CalibrationReport; sequence: number }>();
  /** By provider and id; a Map keeps the order batches were first saved in. */
  private readonly batches = new Map<string, StoredJudgeBatch>();
  private sequence = 0;
  private closed = false;

  constructor() {
    super();
    this.judgeCache = {
      get: async (key) => {
        this.assertOpen(`read judge cache entry "${key}"`);
        const entry = this.cache.get(key);
        return entry === undefined
          ? undefined
          : fromKeptAnswer(this.copy("read the judge cache", entry.answer));
      },
      set: async (key, answer, options = {}) => {
        this.assertOpen(`write judge cache entry "${key}"`);
        this.cache.set(key, {
          answer: this.write(`write judge cache entry "${key}"`, toKeptAnswer(answer)),
          createdAt: options.createdAt ?? new Date().toISOString(),
        });
      },
      entries: async ({ after, limit }) => {
        this.assertOpen("list the judge cache");
        return [...this.cache.keys()]
          .filter((key) => after === undefined || key > after)
          .sort()
          .slice(0, limit)
          .map((key) => {
            const entry = this.cache.get(key) as { answer: KeptJudgeAnswer; createdAt: string };
            const { answer, createdAt } = this.copy("list the judge cache", entry);
            return { key, answer: fromKeptAnswer(answer), createdAt };
          });
      },
    };
    this.judgeBatches = {
      save: async (batch) => {
        const action = `save judge batch "${batch.id}"`;
        this.assertOpen(action);
        this.batches.set(`${batch.provider}\u0000${batch.id}`, this.write(action, batch));
      },
      list: async () => {
        this.assertOpen("list judge batches");
        return [...this.batches.values()].map((batch) => this.copy("list judge batches", batch));
      },
      listOpen: async () => {
        this.assertOpen("list open judge batches");
        return [...this.batches.values()]
          .filter((batch) => batch.state === "open")
          .sort((left, right) =>
            left.createdAt < right.createdAt ? -1 : left.createdAt > right.createdAt ? 1 : 0,
          )
          .map((batch) => this.copy("list open judge batches", batch));
      },
    };
  }

  async startRun(run: StoredRun): Promise<void> {
    checkRunNames(run);
    const action = `start run "${run.id}"`;
    this.assertOpen(action);
    if (this.entries.has(run.id)) {
      throw failure(
        action,
        "a run with this id already exists: resume it with reopenRun, or choose another id",
      );
    }
    const { shards, ...header } = run;
    const stored = this.write(action, { ...header, owner: run.owner ?? null });
    this.entries.set(run.id, {
      run: stored,
      sequence: this.sequence++,
      results: new Map(),
      judgeTexts: new Map(),
      version: 0,
      shards:
        shards === undefined
          ? null
          : {
              count: shards.count,
              parts: new Map(
                this.write(action, shards.parts).map((part) => [part.shard, part] as const),
              ),
            },
    });
  }

  async startRunPart(options: StartRunPartOptions): Promise<void> {
    const { run, part } = options;
    checkRunNames(run);
    const { action, problem } = checkRunPart(options);
    this.assertOpen(action);
    if (problem !== null) throw failure(action, problem);
    let entry = this.entries.get(run.id);
    if (entry === undefined) {
      const { shards: _ignored, ...header } = run;
      entry = {
        run: this.write(action, { ...header, owner: null }),
        sequence: this.sequence++,
        results: new Map(),
        judgeTexts: new Map(),
        version: 0,
        shards: { count: part.shard.count, parts: new Map() },
      };
      this.entries.set(run.id, entry);
    }
    const joins = checkShardJoins({ shard: part.shard, count: entry.shards?.count ?? null });
    if (joins !== null || entry.shards === null) throw failure(action, joins ?? "not sharded");
    entry.shards.parts.set(part.shard.index, {
      shard: part.shard.index,
      status: "running",
      startedAt: part.startedAt,
      endedAt: null,
      summary: null,
      owner: part.owner === null ? null : this.copy(action, part.owner),
    });
    entry.run = { ...entry.run, status: "running", endedAt: null, summary: null };
  }

  async reopenRun(runId: string, options: { shard?: number } = {}): Promise<void> {
    const action = `reopen run "${runId}"`;
    const entry = this.entry(action, runId);
    if (options.shard !== undefined) {
      this.updatePart(action, entry, options.shard, (part) => ({
        ...part,
        status: "running",
        endedAt: null,
        summary: null,
      }));
    }
    entry.run = { ...entry.run, status: "running", endedAt: null, summary: null };
  }

  async heartbeatRun(options: { runId: string; owner: RunOwner; shard?: number }): Promise<void> {
    const action = `record a heartbeat of run "${options.runId}"`;
    const entry = this.entry(action, options.runId);
    const problem = checkOwner(options.owner);
    if (problem !== null) throw failure(action, problem);
    const owner = this.copy(action, options.owner);
    if (options.shard !== undefined) {
      this.updatePart(action, entry, options.shard, (part) => ({ ...part, owner }));
      return;
    }
    entry.run = { ...entry.run, owner };
  }

  async saveTestResult(runId: string, stored: StoredTestResult): Promise<void> {
    const index = stored.result.index;
    const action = `save test result ${index} of run "${runId}"`;
    this.assertOpen(action);
    if (!Number.isSafeInteger(index) || index < 0) {
      throw failure(action, "result.index must be a non-negative integer");
    }
    const entry = this.entries.get(runId);
    if (entry === undefined)
      throw failure(action, "there is no run with this id: call startRun first");
    const texts = judgeTextsToStore(stored.judgeTexts);
    if (typeof texts === "string") throw failure(action, texts);
    const { judgeTexts: _texts, ...rest } = stored;
    entry.version += 1;
    entry.results.set(index, { stored: this.write(action, rest), version: entry.version });
    for (const { hash, text } of texts) entry.judgeTexts.set(hash, text);
  }

  async getJudgeTexts(runId: string, hashes: readonly string[]): Promise<JudgeText[]> {
    const action = `read the judge texts of run "${runId}"`;
    this.assertOpen(action);
    const wanted = judgeTextHashesToRead(hashes);
    if (typeof wanted === "string") throw failure(action, wanted);
    const texts = this.entries.get(runId)?.judgeTexts;
    if (texts === undefined) return [];
    return wanted.flatMap((hash) => {
      const text = texts.get(hash);
      return text === undefined ? [] : [{ hash, text }];
    });
  }

  async finishRun(options: FinishRunOptions & { shard?: number }): Promise<void> {
    const action = `finish run "${options.runId}"`;
    const entry = this.entry(action, options.runId);
    if (options.shard !== undefined) {
      const summary = this.write(action, options.summary);
      this.updatePart(action, entry, options.shard, (part) => ({
        ...part,
        status: options.status,
        endedAt: options.endedAt,
        summary,
      }));
      return;
    }
    entry.run = {
      ...entry.run,
      status: options.status,
      endedAt: options.endedAt,
      summary: this.write(action, options.summary),
    };
  }

  async getRun(idOrIdentifier: string): Promise<StoredRun | null> {
    const action = `read run "${idOrIdentifier}"`;
    this.assertOpen(action);
    let found = this.entries.get(idOrIdentifier);
    if (found === undefined) {
      for (const entry of this.entries.values()) {
        if (entry.run.identifier !== idOrIdentifier) continue;
        if (found === undefined || isNewer(entry, found)) found = entry;
      }
    }
    return found === undefined ? null : this.copy(action, this.read(found));
  }

  async getTestResults(
    runId: string,
    options: { changedAfter?: number; afterIndex?: number; limit?: number } = {},
  ): Promise<StoredTestResult[]> {
    const action = `read the test results of run "${runId}"`;
    this.assertOpen(action);
    const page = checkResultsPage(options);
    if (typeof page === "string") throw failure(action, page);
    const results = this.entries.get(runId)?.results;
    if (results === undefined) return [];
    const after = options.changedAfter ?? Number.NEGATIVE_INFINITY;
    const found = [...results.entries()]
      .filter(([, saved]) => saved.version > after)
      .sort(([left], [right]) => left - right)
      .map(([, saved]) => saved.stored);
    return (page === null ? found : pageOf(found, page)).map((stored) => this.copy(action, stored));
  }

  async getTestResultsVersion(runId: string): Promise<TestResultsVersion> {
    this.assertOpen(`read the results version of run "${runId}"`);
    const entry = this.entries.get(runId);
    return { count: entry?.results.size ?? 0, version: entry?.version ?? 0 };
  }

  async listRuns(options: { limit?: number } = {}): Promise<StoredRun[]> {
    this.assertOpen("list runs");
    const limit = options.limit;
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw failure("list runs", "limit must be a non-negative integer");
    }
    return [...this.entries.values()]
      .sort((left, right) => (isNewer(left, right) ? -1 : 1))
      .slice(0, limit)
      .map((entry) => this.copy("list runs", this.read(entry)));
  }

  async saveCalibration(report: CalibrationReport): Promise<void> {
    checkCalibrationNames(report);
    const action = `save calibration "${report.id}"`;
    this.assertOpen(action);
    if (this.reports.has(report.id)) {
      throw failure(action, "a calibration with this id already exists: choose another id");
    }
    if (!this.entries.has(report.runId)) {
      throw failure(
        action,
        `there is no run "${report.runId}" to link it to: store the run that scored the rows first`,
      );
    }
    this.reports.set(report.id, {
      report: this.write(action, report),
      sequence: this.sequence++,
    });
  }

  async getCalibration(id: string): Promise<CalibrationReport | null> {
    const action = `read calibration "${id}"`;
    this.assertOpen(action);
    const entry = this.reports.get(id);
    return entry === undefined ? null : this.copy(action, entry.report);
  }

  async listCalibrations(
    options: { runId?: string; limit?: number } = {},
  ): Promise<CalibrationReport[]> {
    this.assertOpen("list calibrations");
    const { runId, limit } = options;
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw failure("list calibrations", "limit must be a non-negative integer");
    }
    return [...this.reports.values()]
      .filter((entry) => runId === undefined || entry.report.runId === runId)
      .sort((left, right) =>
        left.report.createdAt !== right.report.createdAt
          ? left.report.createdAt < right.report.createdAt
            ? 1
            : -1
          : right.sequence - left.sequence,
      )
      .slice(0, limit)
      .map((entry) => this.copy("list calibrations", entry.report));
  }

  /** Closes the store. Closing twice is harmless; any other call afterwards throws a StoreError. */
  async close(): Promise<void> {
    this.closed = true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The run as read: a sharded run with its parts and the owner they give it. */
  private read(entry: RunEntry): StoredRun {
    if (entry.shards === null) return entry.run;
    const parts = [...entry.shards.parts.values()].sort((left, right) => left.shard - right.shard);
    return {
      ...entry.run,
      owner: shardedRunOwner(parts),
      shards: { count: entry.shards.count, parts },
    };
  }

  private updatePart(
    action: string,
    entry: RunEntry,
    shard: number,
    change: (part: StoredRunPart) => StoredRunPart,
  ): void {
    const part = entry.shards?.parts.get(shard);
    if (entry.shards === null || part === undefined) {
      throw failure(action, `the run has no shard ${shard}: start it with startRunPart`);
    }
    entry.shards.parts.set(shard, change(part));
  }

  private entry(action: string, runId: string): RunEntry {
    this.assertOpen(action);
    const entry = this.entries.get(runId);
    if (entry === undefined) throw failure(action, "there is no run with this id");
    return entry;
  }

  private assertOpen(action: string): void {
    if (this.closed) throw failure(action, "the store is closed: create a new MemoryRunStore");
  }

  /** What is stored: a copy with secrets masked, as `SqliteRunStore` writes it. */
  private write<Value>(action: string, value: Value): Value {
    return this.copy(action, redactSecrets(value));
  }

  private copy<Value>(action: string, value: Value): Value {
    try {
      return structuredClone(value);
    } catch (error) {
      throw failure(action, `the value is not plain data (${(error as Error).message})`, error);
    }
  }
}

function failure(action: string, reason: string, cause?: unknown): StoreError {
  return storeFailure({ store: "the in-memory verdict store", action, reason, cause });
}
