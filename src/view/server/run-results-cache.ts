import type { TestResult } from "../../results/evaluation-result.ts";
import { LoadedRun } from "./loaded-run.ts";
import type { ViewStore } from "./view-store.ts";

/** Options of {@link RunResultsCache}. */
export interface RunResultsCacheOptions {
  store: ViewStore;
  /**
   * How many cases the cache holds over all its runs; the least recently used runs go first
   * (the run just read always stays).
   * @default 30000 (a 10,000-case run with two metrics per case holds about 85 MB)
   */
  maxCases?: number;
}

/**
 * The results of the runs the dashboard reads, loaded once into memory ({@link LoadedRun}).
 * Every read first asks the store for the run's results version (one cheap query): an
 * unchanged run is served from memory, a run that gained or replaced results (one in progress,
 * one resumed) reads only those results again.
 */
export class RunResultsCache {
  private readonly store: ViewStore;
  private readonly maxCases: number;
  /** Most recently used last. */
  private readonly runs = new Map<string, LoadedRun>();
  private readonly loading = new Map<string, Promise<LoadedRun>>();

  constructor(options: RunResultsCacheOptions) {
    this.store = options.store;
    this.maxCases = options.maxCases ?? 30_000;
  }

  /** The run's results as they are in the store now. */
  load(runId: string): Promise<LoadedRun> {
    // Requests arriving together share one read.
    let pending = this.loading.get(runId);
    if (pending === undefined) {
      pending = this.refresh(runId).finally(() => this.loading.delete(runId));
      this.loading.set(runId, pending);
    }
    return pending;
  }

  /** The run as last loaded, without asking the store; `undefined` when not held. */
  peek(runId: string): LoadedRun | undefined {
    return this.runs.get(runId);
  }

  private async refresh(runId: string): Promise<LoadedRun> {
    const current = await this.store.getTestResultsVersion(runId);
    const cached = this.runs.get(runId);
    let loaded: LoadedRun;
    if (
      cached !== undefined &&
      cached.version === current.version &&
      cached.size === current.count
    ) {
      loaded = cached;
    } else if (cached !== undefined && current.version > cached.version) {
      const changed = await this.store.getTestResults(runId, { changedAfter: cached.version });
      loaded = new LoadedRun({
        runId,
        version: current.version,
        results: merge(
          cached.results,
          changed.map((stored) => stored.result),
        ),
        previous: cached,
      });
    } else {
      const all = await this.store.getTestResults(runId);
      loaded = new LoadedRun({
        runId,
        version: current.version,
        results: all.map((stored) => stored.result),
        previous: cached,
      });
    }
    this.runs.delete(runId);
    this.runs.set(runId, loaded);
    this.evict(runId);
    return loaded;
  }

  private evict(keep: string): void {
    let total = 0;
    for (const run of this.runs.values()) total += run.size;
    for (const [runId, run] of this.runs) {
      if (total <= this.maxCases) break;
      if (runId === keep) continue;
      this.runs.delete(runId);
      total -= run.size;
    }
  }
}

/** Results in index order, with `changed` replacing or joining them. */
function merge(results: readonly TestResult[], changed: readonly TestResult[]): TestResult[] {
  const byIndex = new Map(results.map((result) => [result.index, result]));
  for (const result of changed) byIndex.set(result.index, result);
  return [...byIndex.values()].sort((left, right) => left.index - right.index);
}
