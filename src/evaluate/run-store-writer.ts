import { randomUUID } from "node:crypto";
import { ConfigError } from "../errors/config-error.ts";
import { StoreError } from "../errors/store-error.ts";
import type { EvaluationSummary, RunStatus, TestResult } from "../results/evaluation-result.ts";
import { RunTally } from "../results/summarize-run.ts";
import { readTestResults } from "../store/read-test-results.ts";
import { STALE_AFTER_MS } from "../store/run-liveness.ts";
import { formatShard, runGroupOf, shardedRunId, summarizeShardedRun } from "../store/run-shards.ts";
import type { RunOwner, RunShard, Store, StoredRun, StoredTestResult } from "../store/run-store.ts";

/** Options of {@link RunStoreWriter}. */
export interface RunStoreWriterOptions {
  /** The run's store, or `null` for none. */
  store: Store | null;
  /** Whether the writer closes the store when the run ends. */
  owned: boolean;
  identifier: string | null;
  /** When the run began (`Date.now()`). */
  startedAt: number;
  /**
   * What a store that breaks during the run does (once its own retries are spent): `"stop"`
   * rejects the call that met it (the run then fails, keeping what was stored); `"continue"`
   * warns once and goes on, keeping the cases it could not store to write them with the run's
   * end (a Vitest run, whose tests must still report).
   */
  onStoreFailure: "stop" | "continue";
  /** Whether the run resumes an earlier one. */
  resume: boolean;
  /** The CI shard this process runs, or `null`. */
  shard: RunShard | null;
  /** Where the run group of a sharded run is read (`VERDICT_RUN_GROUP`, the CI build). */
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
}

/**
 * Everything a run writes to its store: the run's start (or the reopened run it resumes, or
 * its shard's part of the run a build's shards share), each finished case, heartbeats, and
 * the end, with the store failure policy of the run. Writes of cases may overlap; the end
 * waits for them.
 */
export class RunStoreWriter {
  private store: Store | null;
  private readonly options: RunStoreWriterOptions;
  private runIdValue: string = randomUUID();
  /** The shard's part of a run shared by a build's shards, or `null` for a run of its own. */
  private part: { shard: RunShard; group: string } | null = null;
  private readonly writes = new Set<Promise<void>>();
  /**
   * Under `"continue"`, once the store failed: the cases not stored yet, written again with the
   * run's end; `null` while the store works.
   */
  private held: StoredTestResult[] | null = null;
  /** The summary the resumed run (or shard part) ended with, before it was reopened. */
  private resumedSummaryValue: EvaluationSummary | null = null;

  constructor(options: RunStoreWriterOptions) {
    this.options = options;
    this.store = options.store;
  }

  get runId(): string {
    return this.runIdValue;
  }

  /**
   * The summary the run this one resumes ended with (what its earlier parts spent, against a
   * budget); `null` for a new run, or one that ended without a summary (killed outright).
   */
  get resumedSummary(): EvaluationSummary | null {
    return this.resumedSummaryValue;
  }

  /** Whether the run is still stored (a `"continue"` run drops a store that broke). */
  get storing(): boolean {
    return this.store !== null;
  }

  /**
   * Starts the stored run, or (resume) reopens the latest run of the identifier and returns
   * its finished results whose fingerprint still matches, by index (only those of `indices`
   * when given). A shard with a run group starts, or reopens, its part of the build's run.
   */
  async start(options: {
    config: Record<string, unknown>;
    fingerprintOf?: ((index: number) => string) | undefined;
    indices?: ReadonlySet<number> | undefined;
    owner: () => RunOwner;
  }): Promise<Map<number, TestResult>> {
    const { store } = this;
    const { identifier, shard, resume } = this.options;
    const group = shard === null ? null : runGroupOf(this.options.env);
    if (shard !== null && resume && group === null) {
      throw new ConfigError(
        `resuming shard ${formatShard(shard)} needs the run its shards share: set VERDICT_RUN_GROUP ` +
          "to the same value for every shard of the build (CI sets it for you on GitHub Actions, " +
          "GitLab CI, Buildkite and CircleCI).",
      );
    }
    const reused = new Map<number, TestResult>();
    const reuse = async (runId: string) => {
      if (store === null) return;
      for await (const stored of readTestResults(store, runId)) {
        const index = stored.result.index;
        if (options.indices !== undefined && !options.indices.has(index)) continue;
        if (options.fingerprintOf?.(index) === stored.fingerprint) reused.set(index, stored.result);
      }
    };
    if (shard !== null && group !== null) {
      this.part = { shard, group };
      this.runIdValue = shardedRunId({ identifier, group, count: shard.count });
      await this.startPart({ config: options.config, reuse, owner: options.owner });
      return reused;
    }
    const existing = resume && store && identifier ? await store.runs.getRun(identifier) : null;
    if (existing && store) {
      this.runIdValue = existing.id;
      this.resumedSummaryValue = existing.summary;
      await reuse(existing.id);
      await store.runs.reopenRun(existing.id);
      await this.use((opened) =>
        opened.runs.heartbeatRun({ runId: existing.id, owner: options.owner() }),
      );
    } else {
      await this.use((opened) =>
        opened.runs.startRun({ ...this.header(options.config), owner: options.owner() }),
      );
    }
    return reused;
  }

  private header(config: Record<string, unknown>): StoredRun {
    return {
      id: this.runIdValue,
      identifier: this.options.identifier,
      status: "running",
      startedAt: new Date(this.options.startedAt).toISOString(),
      endedAt: null,
      config,
      summary: null,
    };
  }

  /** Starts this shard's part of the build's run; resuming, reopens the part it left. */
  private async startPart(options: {
    config: Record<string, unknown>;
    reuse: (runId: string) => Promise<void>;
    owner: () => RunOwner;
  }): Promise<void> {
    const { store } = this;
    const part = this.part;
    if (part === null || store === null) return;
    const shards = store.shards;
    if (shards === null) {
      throw new ConfigError(
        `shard ${formatShard(part.shard)} of a build needs a store that keeps sharded runs; ` +
          "this store has none: use the SQLite or PostgreSQL store.",
      );
    }
    const runId = this.runIdValue;
    const existing = this.options.resume ? await store.runs.getRun(runId) : null;
    const earlier = existing?.shards?.parts.find((stored) => stored.shard === part.shard.index);
    if (earlier !== undefined) {
      this.resumedSummaryValue = earlier.summary;
      await options.reuse(runId);
      await shards.reopenRunPart(runId, part.shard.index);
      await this.use(() =>
        shards.heartbeatRunPart({ runId, owner: options.owner(), shard: part.shard.index }),
      );
      return;
    }
    await this.use(() =>
      shards.startRunPart({
        run: this.header({ ...options.config, runGroup: part.group }),
        part: {
          shard: part.shard,
          startedAt: new Date(this.options.startedAt).toISOString(),
          owner: options.owner(),
        },
      }),
    );
  }

  /** Stores a finished case; resolves once stored (or held for the end under `"continue"`). */
  saveCase(options: StoredTestResult): Promise<void> {
    if (this.held !== null) {
      this.held.push(options);
      return Promise.resolve();
    }
    const write = this.use((store) => store.runs.saveTestResult(this.runIdValue, options), options);
    this.writes.add(write);
    const forget = () => this.writes.delete(write);
    write.then(forget, forget);
    return write;
  }

  /** Records the owner's heartbeat: of the run, or of this shard's part. */
  async heartbeat(owner: RunOwner): Promise<void> {
    const store = this.store;
    if (store === null) return;
    const part = this.part;
    if (part !== null && store.shards !== null) {
      await store.shards.heartbeatRunPart({
        runId: this.runIdValue,
        owner,
        shard: part.shard.index,
      });
      return;
    }
    await store.runs.heartbeatRun({ runId: this.runIdValue, owner });
  }

  /**
   * Ends the stored run (or this shard's part; the last part to end sums up the whole run),
   * once the writes of cases are done, and after the cases held while the store failed
   * (`"continue"`). A failure is a warning that says what the store is left with.
   */
  async finish(options: { status: RunStatus; summary: EvaluationSummary }): Promise<void> {
    await Promise.allSettled([...this.writes]);
    const store = this.store;
    if (store === null) return;
    if (!(await this.writeHeld(store))) return;
    const ending = {
      runId: this.runIdValue,
      status: options.status,
      endedAt: new Date().toISOString(),
      summary: options.summary,
    };
    try {
      const part = this.part;
      if (part !== null && store.shards !== null) {
        await store.shards.finishRunPart({ ...ending, shard: part.shard.index });
        await this.finishSharedRun(store);
      } else {
        await store.runs.finishRun(ending);
      }
    } catch (error) {
      this.options.warn(
        `Warning: the run's end could not be stored: ${(error as Error).message} ${this.leftRunning()}` +
          (this.options.onStoreFailure === "stop"
            ? ` What it stored is kept: once the store is back, resume it with evaluate({ identifier: "${this.options.identifier ?? this.runIdValue}", resume: true, … }).`
            : ""),
      );
    }
  }

  /**
   * Writes the cases held while the store failed; whether they all are (or none was held).
   * If not, the run's end is not written either: the stored run would claim results it lacks.
   */
  private async writeHeld(store: Store): Promise<boolean> {
    const held = this.held;
    if (held === null) return true;
    let written = 0;
    try {
      for (const stored of held) {
        await store.runs.saveTestResult(this.runIdValue, stored);
        written += 1;
      }
      this.held = null;
      return true;
    } catch (error) {
      this.options.warn(
        `Warning: the store failed again at the run's end, so ${held.length - written} of its ` +
          `results and its end are not stored: ${(error as Error).message} ${this.leftRunning()} ` +
          "This run's reports hold every result.",
      );
      return false;
    }
  }

  private leftRunning(): string {
    const minutes = STALE_AFTER_MS / 60_000;
    return (
      "The stored run stays marked running; verdict view and verdict compare show it as " +
      `interrupted once its last heartbeat is ${minutes} minutes old.`
    );
  }

  /**
   * Ends the run its shards share once none of its started parts runs any more: the last
   * shard to finish sums it up whole. Two shards ending together may both do it (the same
   * totals); neither can miss it, since each looks after storing its own end.
   */
  private async finishSharedRun(store: Store): Promise<void> {
    const run = await store.runs.getRun(this.runIdValue);
    const parts = run?.shards?.parts ?? [];
    if (parts.length === 0 || parts.some((part) => part.status === "running")) return;
    // Read a page at a time into the run's totals: the whole run is never held.
    const tally = new RunTally();
    for await (const stored of readTestResults(store, this.runIdValue)) tally.add(stored.result);
    const summary = summarizeShardedRun({ parts, testResults: tally });
    await store.runs.finishRun({
      runId: this.runIdValue,
      status: summary.status,
      endedAt: parts.reduce((latest, part) => {
        const ended = part.endedAt ?? "";
        return ended > latest ? ended : latest;
      }, ""),
      summary,
    });
  }

  /** Closes the store if the run opened it. Safe to call more than once. */
  async close(): Promise<void> {
    const store = this.store;
    this.store = null;
    if (store !== null && this.options.owned) await store.close();
  }

  // The run's store failure policy, for every write during the run (a failure here comes
  // after the store's own retries: a PostgreSQL store waits out a restart or an outage first).
  private async use(
    action: (store: Store) => Promise<void>,
    testCase?: StoredTestResult,
  ): Promise<void> {
    const store = this.store;
    if (store === null) return;
    if (this.options.onStoreFailure === "stop") {
      await action(store);
      return;
    }
    try {
      await action(store);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      if (testCase === undefined) {
        // The run could not even start in the store: there is nothing to write cases into.
        if (this.store === null) return;
        this.options.warn(`Warning: ${error.message} The rest of the run is not stored.`);
        await this.close();
        return;
      }
      const first = this.held === null;
      this.held ??= [];
      this.held.push(testCase);
      if (first) {
        this.options.warn(
          `Warning: ${error.message} The run goes on: its cases are kept and written to the store with the run's end.`,
        );
      }
    }
  }
}
