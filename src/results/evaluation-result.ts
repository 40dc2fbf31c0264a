import type { MetricData } from "./metric-data.ts";
import type { TraceRecord } from "./trace-record.ts";

/** One trial of a test case (runs with `repeat` > 1 have several). */
export interface TrialResult {
  trial: number;
  /** `false` when a metric failed or errored; `null` when no metric had a threshold. */
  success: boolean | null;
  metricsData: MetricData[];
}

/** The outcome of one test case, as plain JSON. */
export interface TestResult {
  /** The test case's `name`, else `test_case_<index>` (the Vitest test's name under Vitest). */
  name: string;
  /**
   * Ordering key, not for display: the position in evaluate()'s input (from 0); under
   * `verdict test run` a sparse key that encodes file, test and case order. Reports show a
   * case's place counted from 1 (the JSON report's `position`) or its name instead.
   */
  index: number;
  /** `false` when any metric of any trial failed or errored. */
  success: boolean | null;
  /** Text of the fields, images shown as `[image N: source]` (each also listed in `images`). */
  input: string;
  actualOutput: string | null;
  expectedOutput: string | null;
  /** The images of `input`, `actualOutput` and `expectedOutput`, in order. */
  images: ResultImage[];
  /** Metric results of the first trial (of the only one, without `repeat`). */
  metricsData: MetricData[];
  /** Every trial, when `repeat` > 1. */
  trials: TrialResult[];
  /** How many trials passed, of `trials.length` (1 without repeat). */
  passedTrials: number;
  /**
   * Wall time of scoring the case, every metric and trial, in milliseconds. Absent in results
   * stored by older versions and on cases that were invalid (never scored).
   */
  durationMs?: number | undefined;
  /**
   * Component-level runs (`evaluate({ goldens, observedCallback })`): the application's span
   * tree, with each span's metric results (of the first trial, with `repeat`).
   */
  trace?: TraceRecord | undefined;
  /**
   * The test file the case came from, relative to the project (`verdict test run`). Absent
   * where unknown (evaluate(), results stored by older versions).
   */
  file?: string | undefined;
  /**
   * The line of the test in {@link file}, from 1 (`verdict test run`): where CI annotates a
   * failing case. Absent where unknown.
   */
  line?: number | undefined;
  /** The test case's `tags`. Absent when it had none (and in results stored by older versions). */
  tags?: string[] | undefined;
  /** The test case's `context`, when it had one. */
  context?: string[] | undefined;
  /** The test case's `retrievalContext`, when it had one. */
  retrievalContext?: string[] | undefined;
}

/** An image of a test-case field, kept structured so that no report parses it back out of text. */
export interface ResultImage {
  field: "input" | "actualOutput" | "expectedOutput";
  /** Its number in the field, from 1: the `N` of its marker `[image N: …]`. */
  number: number;
  /** Where its marker sits in the field's text, as character offsets `[start, end)`. */
  start: number;
  end: number;
  /** What kind of source the image came from. */
  kind: "url" | "file" | "data-url" | "bytes";
  /** How it is shown: the URL, the path, the start of a `data:` URL, or its size in bytes. */
  label: string;
  /**
   * The image itself as a `data:` URL, for images given as bytes or a `data:` URL (up to
   * {@link MAX_STORED_IMAGE_BYTES}), so that a viewer can show it without reading anything
   * else. Absent for URLs and files (the label names them), larger images, and results
   * stored by older versions.
   */
  data?: string | undefined;
}

/** The largest image (in bytes) whose data a result keeps (see {@link ResultImage.data}). */
export const MAX_STORED_IMAGE_BYTES = 2_000_000;

/** Per-metric aggregate of a run. */
export interface MetricSummary {
  name: string;
  /** Which way the metric's score improves (see {@link MetricData.lowerIsBetter}). */
  lowerIsBetter: boolean;
  /** Mean over scored results; `null` when none was scored. */
  meanScore: number | null;
  /** passed ÷ (passed + failed + errored): an error counts against; `null` when nothing had a threshold. */
  passRate: number | null;
  /**
   * 95% interval of `meanScore` (seeded percentile bootstrap over the scored results), `null`
   * when nothing was scored. Absent in summaries stored by older versions.
   */
  meanScoreInterval?: [number, number] | null | undefined;
  /** 95% Wilson interval of `passRate`; `null` when it is. Absent in older summaries. */
  passRateInterval?: [number, number] | null | undefined;
  passed: number;
  failed: number;
  errored: number;
  /** Scored with a `null` threshold. */
  scoreOnly: number;
}

/**
 * How a run ended. `"budget-exhausted"`: its budget (`budget`, `--max-cost`, `--max-tokens`)
 * could not pay for another judge call, so it stopped, keeping every finished case.
 */
export type RunStatus =
  | "running"
  | "completed"
  | "interrupted"
  | "quota-exhausted"
  | "budget-exhausted"
  | "failed";

/** A run's budget and what the run spent of it, its earlier parts included (a resumed run). */
export interface BudgetSummary {
  /** The cap in USD; `null` without one. */
  maxCostUsd: number | null;
  /** The cap in tokens (prompt and completion); `null` without one. */
  maxTokens: number | null;
  /**
   * USD spent: answered calls at their cost, and calls that may have been billed without an
   * answer (a timeout, a dropped connection) at their reserved worst case.
   */
  spentCostUsd: number;
  /** Tokens spent, counted the same way. */
  spentTokens: number;
}

/** What a run spent on its judge, and what the cache and shared calls saved. */
export interface JudgeSpending {
  /** Judge requests paid for (each retry counts once: the answer that was used). */
  judgeCalls: number;
  /** Answers served from the cache (nothing paid). */
  cacheHits: number;
  /** Answers shared with an identical request in flight (nothing paid). */
  sharedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** USD paid; `null` when a price was unknown. */
  costUsd: number | null;
  /** What the cache hits and shared calls would have cost (calls, tokens, USD). */
  saved: { judgeCalls: number; inputTokens: number; outputTokens: number; costUsd: number | null };
}

/** A case of a `repeat` run that neither always passed nor always failed. */
export interface FlakyCase {
  name: string;
  /** Its place in the run, from 1. */
  position: number;
  passedTrials: number;
  trials: number;
  /** 95% Wilson interval of the case's pass rate. */
  passRateInterval: [number, number];
}

/** Totals of a run. */
export interface EvaluationSummary extends JudgeSpending {
  status: RunStatus;
  metrics: MetricSummary[];
  testCases: {
    total: number;
    passed: number;
    failed: number;
    /** Cases not scored because the run stopped (quota, interruption, error). */
    unscored: number;
    /**
     * Of `failed`, the cases with an errored metric (a judge error, a missing field): failed
     * cases are those that scored past a threshold plus these. Absent in summaries stored by
     * older versions.
     */
    errored?: number | undefined;
  };
  /** The judge models the results name (`evaluationModel`), sorted. Absent in older summaries. */
  judges?: string[] | undefined;
  durationMs: number;
  /**
   * Cases of a `repeat` run that passed some trials and failed others, in run order: passes
   * `passedTrials` of `trials`, with a 95% Wilson interval of the case's pass rate. Absent when
   * none (and in older summaries).
   */
  flakyCases?: FlakyCase[] | undefined;
  /**
   * `true` when some score came from verdict's fake judge (`VERDICT_MODEL=fake`): the scores
   * are not real. Absent otherwise.
   */
  fakeJudge?: true | undefined;
  /** The run's budget and what it spent of it, when it had one. Absent otherwise. */
  budget?: BudgetSummary | undefined;
}

/** What evaluate() returns. */
export interface EvaluationResult {
  testRunId: string;
  identifier: string | null;
  testResults: TestResult[];
  summary: EvaluationSummary;
}
