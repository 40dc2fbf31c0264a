/** What the dashboard's JSON API (api.ts) answers of a run's cases: the table and a case's page. */
import type { TestResult } from "../results/evaluation-result.ts";
import type { JudgeCallRecord } from "../results/metric-data.ts";

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
  /** As `RunDetail.resultsVersion`. (Added by the server.) */
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

/** The fields of a stored result the case views read (for the server's mapping). */
export type StoredCase = TestResult;
