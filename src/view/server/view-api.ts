import { compareRuns } from "../../report/compare-runs.ts";
import { binScores, metricDistributions } from "../../report/score-bins.ts";
import type { EvaluationResult, RunStatus } from "../../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE } from "../../results/fake-judge-notice.ts";
import { judgeTextHashesOf } from "../../results/judge-text-hashes.ts";
import { MAX_JUDGE_TEXT_HASHES } from "../../store/judge-texts.ts";
import {
  type RunLiveness,
  type RunLivenessOptions,
  runLiveness,
  watchSessionOf,
} from "../../store/run-liveness.ts";
import type { StoredRun } from "../../store/run-store.ts";
import type { IdentifierList, RunDetail, RunRow, RunsPage, Trend } from "../api.ts";
import type { CalibrationDetail, CalibrationsPage } from "../calibration-views.ts";
import type { CaseDetail, CasesPage } from "../case-views.ts";
import type { RunComparisonView } from "../run-comparison-view.ts";
import { listCalibrations, showCalibration } from "./calibration-view.ts";
import { toCaseDetail } from "./case-detail.ts";
import type { CaseEntry } from "./case-rows.ts";
import { toComparisonView } from "./compare-view.ts";
import { flakyCasesOf } from "./flaky-cases.ts";
import type { LoadedRun } from "./loaded-run.ts";
import { RunResultsCache } from "./run-results-cache.ts";
import { type FullSummary, isFullSummary, summarizeStoredRun, toRunRow } from "./run-rows.ts";
import { BadQueryError, NotFoundError } from "./view-errors.ts";
import {
  alphaParameter,
  integerParameter,
  maxDropParameter,
  parseCaseQuery,
  parseRunsQuery,
  requiredParameter,
} from "./view-query.ts";
import type { ViewStore } from "./view-store.ts";

/** A stored run as the dashboard shows it: its header, liveness and full summary. */
export interface ShownRun {
  run: StoredRun;
  liveness: RunLiveness;
  summary: FullSummary;
  row: RunRow;
}

/** Options of {@link ViewApi}. */
export interface ViewApiOptions {
  store: ViewStore;
  /** The clock, host name and process table that tell a dead run from a live one. */
  liveness: () => RunLivenessOptions;
  /** @default a cache of 30,000 cases */
  cache?: RunResultsCache;
}

/** Why a run's figures may be partial, said on top of its page; `null` for a completed run. */
export function noticeOf(shown: ShownRun): string | null {
  const { liveness, summary } = shown;
  const notes: string[] = [];
  if (liveness.stale) {
    notes.push(
      `This run's process is gone (${liveness.reason}): it was interrupted. Resume it with ${liveness.resumeCommand}.`,
    );
  } else if (liveness.status === "running") {
    notes.push(
      "This run is in progress: its figures cover the cases finished so far, and grow as cases finish.",
    );
  } else if (liveness.status !== "completed") {
    notes.push(
      `This run ended "${liveness.status}": its figures cover only the cases it finished.`,
    );
  }
  if (summary.fakeJudge === true) notes.push(FAKE_JUDGE_NOTICE);
  return notes.length === 0 ? null : notes.join(" ");
}

/**
 * The dashboard's JSON API over a store (see api.ts): each method reads the store (awaiting
 * it) and answers one route. A run's results are read through a {@link RunResultsCache}, so a
 * table query over a 10,000-case run is served from memory. Unknown runs and cases throw
 * {@link NotFoundError}; unusable parameters {@link BadQueryError}.
 */
export class ViewApi {
  readonly cache: RunResultsCache;
  private readonly store: ViewStore;
  private readonly livenessOptions: () => RunLivenessOptions;
  /** Summaries worked out from the results of ended runs, by run id. */
  private readonly computed = new Map<
    string,
    { count: number; version: number; endedAt: string | null; summary: FullSummary }
  >();
  private readonly running = new WeakMap<LoadedRun, { key: string; summary: FullSummary }>();

  constructor(options: ViewApiOptions) {
    this.store = options.store;
    this.livenessOptions = options.liveness;
    this.cache = options.cache ?? new RunResultsCache({ store: options.store });
  }

  /** A run by id or identifier, as shown; throws {@link NotFoundError}. */
  async findRun(idOrIdentifier: string): Promise<ShownRun> {
    const run = await this.store.getRun(idOrIdentifier);
    if (run === null) {
      throw new NotFoundError(
        `No run with the id or identifier ${JSON.stringify(idOrIdentifier.slice(0, 200))}.`,
      );
    }
    return this.show(run);
  }

  /** A stored run as shown (liveness, figures, row). */
  async show(
    run: StoredRun,
    liveness = runLiveness(run, this.livenessOptions()),
  ): Promise<ShownRun> {
    const summary = await this.summaryOf(run, liveness.status);
    const watchSession = watchSessionOf(run, this.livenessOptions());
    return { run, liveness, summary, row: toRunRow({ run, liveness, summary, watchSession }) };
  }

  /** `/api/runs`. */
  async runs(query: URLSearchParams): Promise<RunsPage> {
    const filter = parseRunsQuery(query);
    const options = this.livenessOptions();
    const matching = (await this.store.listRuns())
      .map((run) => ({ run, liveness: runLiveness(run, options) }))
      .filter(({ run, liveness }) => {
        if (filter.identifier !== undefined && run.identifier !== filter.identifier) return false;
        if (filter.status !== null && liveness.status !== filter.status) return false;
        const started = Date.parse(run.startedAt);
        if (filter.from !== null && !(started >= filter.from)) return false;
        if (filter.to !== null && !(started <= filter.to)) return false;
        return (
          filter.q === "" ||
          run.id.toLowerCase().includes(filter.q) ||
          (run.identifier?.toLowerCase().includes(filter.q) ?? false)
        );
      });
    const page = matching.slice(filter.offset, filter.offset + filter.limit);
    const runs: RunRow[] = [];
    for (const { run, liveness } of page) runs.push((await this.show(run, liveness)).row);
    return { runs, total: matching.length, offset: filter.offset, limit: filter.limit };
  }

  /** `/api/identifiers`: newest first. */
  async identifiers(): Promise<IdentifierList> {
    const found = new Map<string | null, { runs: number; latestStartedAt: string }>();
    for (const run of await this.store.listRuns()) {
      const entry = found.get(run.identifier);
      if (entry === undefined)
        found.set(run.identifier, { runs: 1, latestStartedAt: run.startedAt });
      else entry.runs += 1;
    }
    return {
      identifiers: [...found].map(([identifier, entry]) => ({ identifier, ...entry })),
    };
  }

  /**
   * `/api/trends?identifier&limit&fake`: the identifier's latest runs, oldest first; runs scored
   * by the fake judge are left out (and counted) unless `fake=1`.
   */
  async trends(query: URLSearchParams): Promise<Trend> {
    const raw = query.get("identifier");
    if (raw === null) {
      throw new BadQueryError(
        'identifier is required, e.g. identifier=nightly ("identifier=" for runs without one).',
      );
    }
    const identifier = raw === "" ? null : raw;
    const limit = integerParameter(query, "limit", { min: 1, max: 500, fallback: 50 });
    const includeFake = integerParameter(query, "fake", { min: 0, max: 1, fallback: 0 }) === 1;
    const options = this.livenessOptions();
    const runs = (await this.store.listRuns())
      .filter((run) => run.identifier === identifier)
      .slice(0, limit)
      .reverse();
    const metricNames = new Set<string>();
    const points: Trend["points"] = [];
    let fakeRuns = 0;
    for (const run of runs) {
      const { summary, liveness } = await this.show(run, runLiveness(run, options));
      const fakeJudge = summary.fakeJudge === true;
      if (fakeJudge) fakeRuns += 1;
      if (fakeJudge && !includeFake) continue;
      const metrics: Trend["points"][number]["metrics"] = {};
      for (const metric of summary.metrics) {
        metricNames.add(metric.name);
        metrics[metric.name] = { meanScore: metric.meanScore, passRate: metric.passRate };
      }
      points.push({
        runId: run.id,
        startedAt: run.startedAt,
        status: liveness.status,
        costUsd: summary.costUsd,
        metrics,
        fakeJudge,
      });
    }
    return {
      identifier,
      metricNames: [...metricNames],
      points,
      fakeRuns,
      includesFake: includeFake,
    };
  }

  /** `/api/runs/:run`. */
  async runDetail(idOrIdentifier: string): Promise<RunDetail> {
    const shown = await this.findRun(idOrIdentifier);
    const loaded = await this.cache.load(shown.run.id);
    const { summary } = shown;
    const distributions = metricDistributions(loaded.results);
    const lowerIsBetter = new Map(
      summary.metrics.map((metric) => [metric.name, metric.lowerIsBetter]),
    );
    return {
      run: shown.row,
      config: shown.run.config,
      spending: {
        judgeCalls: summary.judgeCalls,
        cacheHits: summary.cacheHits,
        sharedCalls: summary.sharedCalls,
        inputTokens: summary.inputTokens,
        outputTokens: summary.outputTokens,
        costUsd: summary.costUsd,
        saved: { ...summary.saved },
      },
      histograms: [...distributions].map(([metric, { scores, threshold }]) => ({
        metric,
        counts: binScores(scores),
        threshold,
        lowerIsBetter: lowerIsBetter.get(metric) ?? false,
      })),
      metricNames: loaded.present.metrics,
      files: loaded.present.files,
      tags: loaded.present.tags,
      flakyCases: flakyCasesOf(loaded),
      notice: noticeOf(shown),
      resultsVersion: loaded.version,
    };
  }

  /** `/api/calibrations?runId&limit`: newest first. */
  calibrations(query: URLSearchParams): Promise<CalibrationsPage> {
    return listCalibrations({ store: this.store, query, findRun: (name) => this.findRun(name) });
  }

  /** `/api/calibrations/:id`: the report, its run (when still stored) and its wrong rows' cases. */
  calibration(id: string): Promise<CalibrationDetail> {
    return showCalibration({
      store: this.store,
      id,
      show: (run) => this.show(run),
      load: (runId) => this.cache.load(runId),
    });
  }

  /** `/api/runs/:run/cases`. */
  async cases(idOrIdentifier: string, query: URLSearchParams): Promise<CasesPage> {
    const loaded = await this.loadRun(idOrIdentifier);
    const page = loaded.query(parseCaseQuery(query, loaded.present.metrics));
    return { ...page, resultsVersion: loaded.version };
  }

  /** `/api/runs/:run/cases/:key`. */
  async caseDetail(idOrIdentifier: string, key: string): Promise<CaseDetail> {
    const loaded = await this.loadRun(idOrIdentifier);
    const entry = loaded.entry(key);
    if (entry === undefined) {
      throw new NotFoundError(
        `Run ${loaded.runId} has no case with the key ${JSON.stringify(key.slice(0, 100))}.`,
      );
    }
    return toCaseDetail({ loaded, entry, texts: await this.judgeTexts(loaded.runId, entry) });
  }

  /** The judge prompts and answers the store keeps for a case's calls, by hash. */
  private async judgeTexts(runId: string, entry: CaseEntry): Promise<Map<string, string>> {
    const hashes = judgeTextHashesOf(entry.result);
    const texts = new Map<string, string>();
    if (this.store.getJudgeTexts === undefined) return texts;
    for (let start = 0; start < hashes.length; start += MAX_JUDGE_TEXT_HASHES) {
      const slice = hashes.slice(start, start + MAX_JUDGE_TEXT_HASHES);
      for (const { hash, text } of await this.store.getJudgeTexts(runId, slice)) {
        texts.set(hash, text);
      }
    }
    return texts;
  }

  /** `/api/compare?run&baseline&maxDrop&alpha&stats`: `compareRuns`, as `verdict compare` prints it. */
  async compare(query: URLSearchParams): Promise<RunComparisonView> {
    const runName = requiredParameter(query, "run", "run=<run id or identifier>");
    const baselineName = requiredParameter(query, "baseline", "baseline=<run id or identifier>");
    const maxDrop = maxDropParameter(query);
    const alpha = alphaParameter(query);
    const candidate = await this.findRun(runName);
    const baseline = await this.findRun(baselineName);
    const [candidateResults, baselineResults] = [
      (await this.cache.load(candidate.run.id)).results,
      (await this.cache.load(baseline.run.id)).results,
    ];
    const comparison = compareRuns({
      baseline: { run: baseline.run, results: baselineResults },
      candidate: { run: candidate.run, results: candidateResults },
      maxDrop,
      alpha,
    });
    return toComparisonView({ run: candidate.row, baseline: baseline.row, comparison, maxDrop });
  }

  /** A stored run as the result the reports read (exports): its status as shown. */
  async evaluationResult(
    idOrIdentifier: string,
  ): Promise<{ shown: ShownRun; result: EvaluationResult }> {
    const shown = await this.findRun(idOrIdentifier);
    const loaded = await this.cache.load(shown.run.id);
    return {
      shown,
      result: {
        testRunId: shown.run.id,
        identifier: shown.run.identifier,
        testResults: loaded.results,
        summary: { ...shown.summary, status: shown.liveness.status },
      },
    };
  }

  /** A run's results, loaded (through the cache); throws {@link NotFoundError}. */
  async loadRun(idOrIdentifier: string): Promise<LoadedRun> {
    const run = await this.store.getRun(idOrIdentifier);
    if (run === null) {
      throw new NotFoundError(
        `No run with the id or identifier ${JSON.stringify(idOrIdentifier.slice(0, 200))}.`,
      );
    }
    return this.cache.load(run.id);
  }

  /**
   * The figures of a run: its stored summary when it has every figure shown; else worked out
   * from its results (a running run's each time they change; an ended run's once).
   */
  private async summaryOf(run: StoredRun, status: RunStatus): Promise<FullSummary> {
    if (run.status !== "running" && isFullSummary(run.summary)) return { ...run.summary, status };
    if (run.status === "running") {
      const loaded = await this.cache.load(run.id);
      const key = `${status} ${run.endedAt}`;
      const known = this.running.get(loaded);
      if (known?.key === key) return known.summary;
      const summary = summarizeStoredRun({ run, status, results: loaded.results });
      this.running.set(loaded, { key, summary });
      return summary;
    }
    const version = await this.store.getTestResultsVersion(run.id);
    const known = this.computed.get(run.id);
    if (
      known !== undefined &&
      known.count === version.count &&
      known.version === version.version &&
      known.endedAt === run.endedAt
    ) {
      return { ...known.summary, status };
    }
    const held = this.cache.peek(run.id);
    const results =
      held !== undefined && held.version === version.version && held.size === version.count
        ? held.results
        : (await this.store.getTestResults(run.id)).map((stored) => stored.result);
    const summary = summarizeStoredRun({ run, status, results });
    this.computed.set(run.id, { ...version, endedAt: run.endedAt, summary });
    return summary;
  }
}
