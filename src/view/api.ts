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
 * | `/api/runs/:run/cases?…` ({@link CaseQuery}) | {@link CasesPage}                      |
 * | `/api/runs/:run/cases/:key`             | {@link CaseDetail}                          |
 * | `/api/runs/:run/cases/:key/images/:n`   | the stored image's bytes (data URL / bytes / file inside the project); 404 for URLs. `:n` counts the case's images from 1 over all fields: use {@link ImageView.src} |
 * | `/api/compare?run=A&baseline=B&maxDrop&alpha&stats` | {@link RunComparisonView} (`maxDrop` as `verdict compare --max-drop`, default 0; `alpha` as `--alpha`, default 0.05; `stats=0` as `--no-stats`) |
 * | `/api/runs/:run/events?after=V`         | server-sent events, {@link LiveEvent}       |
 * | `/api/runs/:run/export?format=html\|json\|junit\|csv` | a download (content-disposition) |
 * | `/api/calibrations?runId&limit`         | {@link CalibrationsPage} (`runId`: a run id or identifier, only its calibrations; limit ≤ 500, default 50), newest first |
 * | `/api/calibrations/:id`                 | {@link CalibrationDetail}                   |
 *
 * `:run` is a run id (or an identifier: its latest run). `:key` is a case's
 * {@link CaseRow.key}. `:id` is a calibration's id. Everything else is the app: `/`,
 * `/runs/:run`, `/runs/:run/cases/:key`, `/compare?run=A&baseline=B` (and
 * `/runs/:run?baseline=B`), `/calibrations` (`?run=R`: of one run) and `/calibrations/:id`
 * serve the app's index.html, which routes on the client; `/assets/*` are the app's built files.
 */

import type { PairedTests } from "../report/paired-tests.ts";
import type { WordDiffPart } from "../report/word-diff.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import type {
  FlakyCase,
  MetricSummary,
  RunStatus,
  TestResult,
} from "../results/evaluation-result.ts";
import type { JudgeCallRecord } from "../results/metric-data.ts";

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
   * its {@link CaseRow.key}; empty when none.
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

/** Which cases `/api/runs/:run/cases` returns, and in what order. */
export interface CaseQuery {
  /**
   * `"case"` (run order, the default), `"name"`, `"status"` (ascending: errored, failed,
   * unscored, scored, passed), or `"metric:<name>"` (by that metric's score; cases without a
   * score on it come last in both directions; an unknown metric is a 400). Ties keep run order.
   */
  sort?: string;
  dir?: "asc" | "desc";
  /** @default "all" */
  filter?: "all" | "passing" | "failing" | "errored";
  /**
   * Case-insensitive text searched in name, input, output, expected output, and the reasons
   * and errors of every metric (all trials).
   */
  q?: string;
  /**
   * `"file"` or `"tag"`: rows come sorted by group first (groups by name; `"(no file)"` or
   * `"untagged"` last), each with its `group`. With `"tag"`, a case with several tags is a row
   * in each of their groups, and `total` counts rows.
   */
  group?: "file" | "tag";
  offset?: number;
  /** @default 100, at most 500 */
  limit?: number;
}

/** A case in the run's table. */
export interface CaseRow {
  /** Stable within the run: the path segment of the case's detail. */
  key: string;
  /** 1-based position in run order (what users see; never an internal index). */
  position: number;
  name: string;
  status: "passed" | "failed" | "errored" | "unscored" | "scored";
  /** The first 200 characters of each (`textLengths` says how long each is whole). */
  input: string;
  actualOutput: string | null;
  expectedOutput: string | null;
  /**
   * The length of each text whole, in characters (`null` where it has none): a row's text is
   * cut when it is shorter than this; the case's page (`/api/runs/:run/cases/:key`) has it whole.
   */
  textLengths: { input: number; actualOutput: number | null; expectedOutput: number | null };
  file: string | null;
  tags: string[];
  /** Set when the query groups: the file (`"(no file)"` for none), or one tag (`"untagged"` for none). */
  group?: string;
  metrics: Record<
    string,
    {
      score: number | null;
      success: boolean | null;
      threshold: number | null;
      error: string | null;
    }
  >;
  durationMs: number | null;
}

/** `/api/runs/:run/cases`. */
export interface CasesPage {
  cases: CaseRow[];
  /** Cases matching the filter and search (all pages). */
  total: number;
  /** Cases in the run. */
  runTotal: number;
  offset: number;
  limit: number;
  /** Groups and their sizes, in order, when the query groups. */
  groups?: Array<{ name: string; count: number }>;
  /** As {@link RunDetail.resultsVersion}. (Added by the server.) */
  resultsVersion: number;
}

/**
 * One judge request behind a metric's score, as results record it: step, model, tokens,
 * `costUsd` (what the answer cost when bought; for `cache` and `shared` nothing was paid),
 * `latencyMs`, `source` (`"judge"`, `"cache"` or `"shared"`), the SHA-256 of its prompt and
 * answer, and their texts.
 */
export type JudgeCallView = JudgeCallRecord & {
  /**
   * The prompt as sent (secrets masked); `null` when the store does not keep it: the run kept
   * only its hash (`keepJudgeText: "hash"`), or was stored before verdict kept prompts
   * (`promptHash` absent too).
   */
  prompt: string | null;
  /** The judge's raw answer (an object answer as its JSON); `null` as `prompt`. */
  answer: string | null;
};

/** One of the judge's steps as rows: (opinion / statement / claim) → verdict → reason. */
export interface StepTable {
  label: string;
  /** Column names, e.g. `["opinion", "verdict", "reason"]`. */
  columns: string[];
  rows: string[][];
  /**
   * The verdict that counts against the output when the metric says so itself (see
   * `MetricStep.flaggedVerdict`); absent, "yes" for a lower-is-better metric, else "no".
   */
  flaggedVerdict?: string;
}

/** A metric on a case, in full. */
export interface MetricDetailView {
  name: string;
  score: number | null;
  threshold: number | null;
  success: boolean | null;
  lowerIsBetter: boolean;
  reason: string | null;
  error: string | null;
  evaluationModel: string | null;
  costUsd: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** The steps as tables where they are lists of items, else as text. */
  steps: Array<StepTable | { label: string; text: string }>;
  /** Empty for results stored before verdict recorded each call. */
  calls: JudgeCallView[];
}

/** An image of a case: where the app loads it from, never a remote URL without a click. */
export interface ImageView {
  field: "input" | "actualOutput" | "expectedOutput";
  number: number;
  label: string;
  /** `/api/runs/:run/cases/:key/images/:n` for stored bytes and local files; `null` for a URL. */
  src: string | null;
  /** The remote URL, shown as a link the user may follow. */
  remoteUrl: string | null;
}

/** `/api/runs/:run/cases/:key`. */
export interface CaseDetail {
  runId: string;
  key: string;
  position: number;
  name: string;
  status: CaseRow["status"];
  input: string;
  actualOutput: string | null;
  expectedOutput: string | null;
  context: string[] | null;
  retrievalContext: string[] | null;
  file: string | null;
  tags: string[];
  images: ImageView[];
  metrics: MetricDetailView[];
  /** For `repeat` runs: every trial's metrics. */
  trials: Array<{ trial: number; success: boolean | null; metrics: MetricDetailView[] }>;
  /**
   * For component runs: the span tree, each span with its metrics. The root is the trace
   * itself (`type: "trace"`, its trace-level metrics); its children are the outermost spans.
   */
  trace: SpanView | null;
  /** Neighbours in run order, for "previous / next". */
  previousKey: string | null;
  nextKey: string | null;
  durationMs: number | null;
}

/** A span of a traced (component) run. */
export interface SpanView {
  name: string;
  type: string;
  input: unknown;
  output: unknown;
  durationMs: number | null;
  error: string | null;
  metrics: MetricDetailView[];
  children: SpanView[];
}

/** `/api/compare`: the same numbers as `verdict compare`. */
export interface RunComparisonView {
  run: RunRow;
  baseline: RunRow;
  /** The `maxDrop` the regressions were judged with. (Added by the server.) */
  maxDrop: number;
  /** The significance level of the paired tests; `null` when they are off (`stats=0`). */
  alpha: number | null;
  /** Cases of one run with no counterpart in the other: not compared. */
  unmatched: { baseline: string[]; candidate: string[] };
  metrics: Array<{
    name: string;
    lowerIsBetter: boolean;
    baseline: MetricSummary | null;
    candidate: MetricSummary | null;
    /** Candidate − baseline; `null` when either is missing. */
    meanScoreChange: number | null;
    passRateChange: number | null;
    /**
     * `"better"`, `"worse"` or `"same"`: the pass rate's change when it moved, else the mean
     * score's, read in the metric's direction; `null` when neither can be compared.
     */
    direction: "better" | "worse" | "same" | null;
    /** Worse beyond `maxDrop` and significant (p < `alpha`): what fails `verdict compare`. */
    regressions: string[];
    /** Worse beyond `maxDrop` but not significant: within the judge's noise. */
    notSignificant: string[];
    /** The paired tests (McNemar on pass/fail, Wilcoxon signed-rank on scores); `null` when off. */
    tests: PairedTests | null;
  }>;
  /** Cases whose verdict on a metric changed, both sides with their reasons. */
  changes: Array<{
    metric: string;
    name: string;
    runKey: string | null;
    baselineKey: string | null;
    from: string;
    to: string;
    baselineScore: number | null;
    candidateScore: number | null;
    baselineReason: string | null;
    candidateReason: string | null;
    /** The case's output in each run (`actualOutput`). */
    baselineOutput: string | null;
    candidateOutput: string | null;
    /**
     * The two outputs' word-level diff: the `"same"` and `"removed"` parts spell the
     * baseline's, the `"same"` and `"added"` parts this run's. `null` when an output is
     * missing, one is too long to diff, or they have almost nothing in common.
     */
    outputDiff: WordDiffPart[] | null;
  }>;
  regressed: boolean;
}

/**
 * A server-sent event of `/api/runs/:run/events` (`event: <type>`, `data: <json>`, `id: <results
 * version>`). On connecting: a `progress` event, then a `case` event for every case saved after
 * `?after=<version>` (or `Last-Event-ID`, which EventSource sends when it reconnects; without
 * either, only cases saved from now on), then `progress` and `case` events as cases finish (the
 * store is read every 300 ms), and `end` when the run stops running (completed, failed,
 * interrupted, or its process is gone), after which the server closes the stream. A run that
 * is not running gets `progress` and `end` at once. Comment lines keep the stream alive.
 *
 * A watch session's run (`RunRow.watchSession` is `"watching"`) that is the latest of its
 * identifier when the stream opens (or on a reconnection) is followed: when it stops running,
 * the stream sends `waiting` (its final row) instead of `end`, then `next` (the newer run's row)
 * as soon as the session's next run is stored, or `end` when the session's process is gone;
 * it closes after either.
 */
export type LiveEvent =
  | { type: "progress"; run: RunRow }
  | { type: "case"; case: CaseRow }
  | { type: "end"; run: RunRow }
  | { type: "waiting"; run: RunRow }
  | { type: "next"; run: RunRow };

/** A calibration (`verdict calibrate`) in the list: what was calibrated, and its agreement. */
export interface CalibrationRow {
  id: string;
  createdAt: string;
  /** The run that scored the rows. */
  runId: string;
  /** How that run ended. */
  status: RunStatus;
  metric: string;
  lowerIsBetter: boolean;
  threshold: number;
  judge: string | null;
  /** The data file as given; `null` for rows passed in memory. */
  source: string | null;
  /** Rows read, scored (`n` of the figures) and left unscored. */
  rows: { total: number; scored: number; unscored: number };
  accuracy: number | null;
  accuracyCi: [number, number] | null;
  kappa: number | null;
  kappaCi: [number, number] | null;
  rocAuc: number | null;
  /** `true` when the scores came from the fake judge (the figures mean nothing). */
  fakeJudge: boolean;
}

/** `/api/calibrations`: calibrations, newest first. */
export interface CalibrationsPage {
  calibrations: CalibrationRow[];
  /** The run asked for (its id), or `null` for all. */
  runId: string | null;
  limit: number;
}

/** `/api/calibrations/:id`: the report as stored, its texts as text (the app shows them as text). */
export interface CalibrationDetail {
  report: CalibrationReport;
  /** The run that scored the rows, as the runs list shows it; `null` when it is gone. */
  run: RunRow | null;
  /**
   * For each of `report.disagreements`, in order: the {@link CaseRow.key} of its case in that
   * run, or `null` when the run does not hold it.
   */
  disagreementKeys: Array<string | null>;
}

/** The fields of a stored result the case views read (for the server's mapping). */
export type StoredCase = TestResult;
