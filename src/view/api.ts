/**
 * The dashboard's JSON API (`verdict view`): the routes the server answers and the shapes it
 * answers with. The server (src/view/server/) and the browser app (src/view/app/) both import
 * these types; nothing here runs.
 *
 * Every route is GET (HEAD too) on 127.0.0.1; with `--token`, every request carries
 * `Authorization: Bearer <token>` or `?token=<token>`, or the cookie the server sets on the
 * first request that carried the token (`verdict_view_token`, HttpOnly, SameSite=Strict): so
 * the app's own assets, `<img>` sources, EventSource and export links need nothing added once
 * the page was opened with `?token=`. Errors are `{ error: string }` with a 4xx/5xx status
 * (400 for a bad query parameter, saying which and what it takes; 404 for an unknown run, case
 * or API route; 503 when the store cannot be read). Every response carries the strict CSP.
 *
 * | route                                   | answers                                     |
 * |-----------------------------------------|---------------------------------------------|
 * | `/api/runs?q&identifier&status&from&to&offset&limit` | {@link RunsPage} ({@link RunsQuery}) |
 * | `/api/identifiers`                      | {@link IdentifierList}                      |
 * | `/api/trends?identifier=X&limit&fake`    | {@link Trend} (`identifier=` empty: runs without one; limit ≤ 500, default 50: the latest runs; `fake=1` keeps runs scored by the fake judge, left out by default) |
 * | `/api/runs/:run`                        | {@link RunDetail}                           |
 * | `/api/runs/:run/cases?…` (`CaseQuery`)  | `CasesPage`                                 |
 * | `/api/runs/:run/cases/:key`             | `CaseDetail`                                |
 * | `/api/runs/:run/cases/:key/images/:n`   | the stored image's bytes (data URL / bytes / file inside the project); 404 for URLs. `:n` counts the case's images from 1 over all fields: use `ImageView.src` |
 * | `/api/compare?run=A&baseline=B&maxDrop&alpha&stats` | `RunComparisonView` (`maxDrop` as `verdict compare --max-drop`, default 0; `alpha` as `--alpha`, default 0.05; `stats=0` as `--no-stats`) |
 * | `/api/runs/:run/events?after=V`         | server-sent events, `LiveEvent`             |
 * | `/api/runs/:run/export?format=html\|json\|junit\|csv` | a download (content-disposition) |
 * | `/api/calibrations?runId&limit`         | `CalibrationsPage` (`runId`: a run id or identifier, only its calibrations; limit ≤ 500, default 50), newest first |
 * | `/api/calibrations/:id`                 | `CalibrationDetail`                         |
 *
 * `:run` is a run id (or an identifier: its latest run). `:key` is a case's
 * `CaseRow.key`. `:id` is a calibration's id. Everything else is the app: `/`,
 * `/runs/:run`, `/runs/:run/cases/:key`, `/compare?run=A&baseline=B` (and
 * `/runs/:run?baseline=B`), `/calibrations` (`?run=R`: of one run) and `/calibrations/:id`
 * serve the app's index.html, which routes on the client; `/assets/*` are the app's built files.
 *
 * The shapes of the runs list, trends and a run's page are here; those of its cases in
 * `case-views.ts`, of a comparison in `run-comparison-view.ts`, of the event stream in
 * `live-event.ts`, and of calibrations in `calibration-views.ts`.
 */

import type { FlakyCase, RunStatus } from "../results/evaluation-result.ts";

/**
 * `/api/runs` parameters. `q`: text found (case-insensitive) in the run's id or identifier;
 * `identifier`: exactly this identifier (`identifier=` empty: runs without one); `status`: a
 * {@link ShownStatus}; `from`/`to`: the start time, inclusive, as a date (`2025-01-31`, `to`
 * taking in that whole day, UTC) or an ISO time; `offset`; `limit` (default 50, at most 500).
 */
export interface RunsQuery {
  q?: string;
  identifier?: string;
  status?: ShownStatus;
  from?: string;
  to?: string;
  offset?: number;
  limit?: number;
}

/** A run's status as shown: a `running` run whose process is gone is `interrupted`. */
export type ShownStatus = RunStatus;

/** One metric's aggregate in a run. */
export interface MetricAggregate {
  name: string;
  lowerIsBetter: boolean;
  /** Mean score over scored cases; `null` when none was scored. */
  meanScore: number | null;
  /** Share of cases with a threshold that passed, 0..1; `null` when none had one. */
  passRate: number | null;
  passed: number;
  failed: number;
  errored: number;
  scoreOnly: number;
  /**
   * 95% interval of `meanScore` (seeded bootstrap), from the run's summary; `null` when nothing
   * was scored or the run was stored by a verdict that kept no intervals.
   */
  meanScoreInterval: [number, number] | null;
  /** 95% Wilson interval of `passRate`; `null` as `passRate` is, or for older runs. */
  passRateInterval: [number, number] | null;
}

/** A run in the runs list. */
export interface RunRow {
  id: string;
  /** The first 8 characters of the id: enough to tell runs apart in a list. */
  shortId: string;
  identifier: string | null;
  status: ShownStatus;
  /** Why a stale run is shown as interrupted, and the command that resumes it. */
  stale: { reason: string; resumeCommand: string | null } | null;
  startedAt: string;
  endedAt: string | null;
  /** `null` while running. */
  durationMs: number | null;
  /**
   * `passed + failed + errored + unscored = total`. `total` is the planned number of cases
   * (while running: of `evaluate()`; a Vitest run learns its size as it goes: the cases so far);
   * `passed` includes score-only cases; `failed` scored past a threshold; `errored` had a
   * metric error; `unscored`: not (yet) scored.
   */
  cases: { total: number; passed: number; failed: number; errored: number; unscored: number };
  metrics: MetricAggregate[];
  judgeCalls: number;
  cacheHits: number;
  costUsd: number | null;
  /** Judge model names used (from the run's config or its results). */
  judges: string[];
  /** `"2/4"` for a shard, else `null`. */
  shard: string | null;
  /** `true` when scores came from the fake judge (not real). */
  fakeJudge: boolean;
  /**
   * A run of a `verdict test run --watch` session: `"watching"` while the session's process
   * runs (its next run follows under the same identifier: the run page's event stream then
   * announces it), `"ended"` once it is gone; `null` for any other run.
   */
  watchSession: "watching" | "ended" | null;
}

/** `/api/runs`: a page of runs, newest first, grouped by identifier in the app. */
export interface RunsPage {
  runs: RunRow[];
  /** Runs matching the filters (all pages). */
  total: number;
  offset: number;
  limit: number;
}

/** `/api/identifiers`: every identifier with its run count and latest run time. */
export interface IdentifierList {
  identifiers: Array<{ identifier: string | null; runs: number; latestStartedAt: string }>;
}

/** One run on a trend line. */
export interface TrendPoint {
  runId: string;
  startedAt: string;
  status: ShownStatus;
  costUsd: number | null;
  metrics: Record<string, { meanScore: number | null; passRate: number | null }>;
  /** `true` for a run scored by the fake judge (only with `fake=1`): its scores are not real. */
  fakeJudge: boolean;
}

/** `/api/trends`: an identifier's runs, oldest first. */
export interface Trend {
  identifier: string | null;
  metricNames: string[];
  points: TrendPoint[];
  /** Of the latest runs read, how many the fake judge scored (left out unless `fake=1`). */
  fakeRuns: number;
  /** Whether `points` include the fake-judge runs (`fake=1`). */
  includesFake: boolean;
}

/** A histogram of a metric's scores over a run: 10 bins over 0..1. */
export interface ScoreHistogram {
  metric: string;
  /** `counts[i]` scores fell in `[i/10, (i+1)/10)` (the last bin includes 1). */
  counts: number[];
  threshold: number | null;
  lowerIsBetter: boolean;
}

/** `/api/runs/:run`: the header, totals and what the case table can sort, filter and group by. */
export interface RunDetail {
  run: RunRow;
  /** The run's configuration, secrets removed (metric options, judge names, …). */
  config: Record<string, unknown>;
  spending: {
    judgeCalls: number;
    cacheHits: number;
    sharedCalls: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number | null;
    saved: {
      judgeCalls: number;
      inputTokens: number;
      outputTokens: number;
      costUsd: number | null;
    };
  };
  histograms: ScoreHistogram[];
  metricNames: string[];
  /** Files and tags present (for "group by"). */
  files: string[];
  tags: string[];
  /**
   * Cases of a `repeat` run that passed some trials and failed others, in run order, each with
   * its `CaseRow.key`; empty when none.
   */
  flakyCases: FlakyCaseView[];
  /** Shown on top when the run is not completed or its process is gone. */
  notice: string | null;
  /**
   * The store's version of the run's results when this was read: pass it as
   * `/api/runs/:run/events?after=` to get every case saved since. (Added by the server.)
   */
  resultsVersion: number;
}

/** A flaky case (passes k of n trials, with a 95% Wilson interval) and the key of its page. */
export type FlakyCaseView = FlakyCase & { key: string };
