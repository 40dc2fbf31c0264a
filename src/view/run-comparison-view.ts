import type { PairedTests } from "../report/paired-tests.ts";
import type { WordDiffPart } from "../report/word-diff.ts";
import type { MetricSummary } from "../results/evaluation-result.ts";
import type { RunRow } from "./api.ts";

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
