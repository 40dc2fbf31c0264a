import {
  type Interval,
  mcnemarExact,
  pairedBootstrap,
  wilcoxonSignedRank,
} from "../results/statistics.ts";
import { verdictOf } from "./metric-verdict.ts";
import type { CasePairs } from "./pair-cases.ts";

/** Paired tests of one metric over the cases present in both runs. */
export interface PairedTests {
  /** Cases both runs have this metric on. */
  pairs: number;
  /** Pass/fail pairs (errors count as fails): the exact McNemar test. */
  passFail: { pairs: number; passToFail: number; failToPass: number; pValue: number } | null;
  /**
   * Scored pairs: the mean change (candidate − baseline, raw score units) with its 95% paired
   * bootstrap interval, and the Wilcoxon signed-rank p-value.
   */
  scores: { pairs: number; meanChange: number; interval: Interval; pValue: number } | null;
}

/** The paired tests of metric `name` over the paired cases (first trial of each). */
export function testPairs(pairs: CasePairs, name: string, lowerIsBetter: boolean): PairedTests {
  let both = 0;
  let passToFail = 0;
  let failToPass = 0;
  let passFailPairs = 0;
  const before: number[] = [];
  const after: number[] = [];
  for (const pair of pairs) {
    const old = pair.before.metricsData.find((data) => data.name === name);
    const now = pair.after.metricsData.find((data) => data.name === name);
    if (old === undefined || now === undefined) continue;
    both += 1;
    const [from, to] = [verdictOf(old), verdictOf(now)];
    if (from !== "scored" && to !== "scored") {
      passFailPairs += 1;
      if (from === "passed" && to !== "passed") passToFail += 1;
      if (from !== "passed" && to === "passed") failToPass += 1;
    }
    if (old.score !== null && now.score !== null) {
      before.push(old.score);
      after.push(now.score);
    }
  }
  const scores = pairedBootstrap({ before, after });
  return {
    pairs: both,
    passFail:
      passFailPairs === 0
        ? null
        : {
            pairs: passFailPairs,
            passToFail,
            failToPass,
            pValue: mcnemarExact({ passToFail, failToPass, alternative: "worse" }),
          },
    scores:
      scores === null
        ? null
        : {
            pairs: before.length,
            meanChange: scores.meanDifference,
            interval: scores.interval,
            pValue: wilcoxonSignedRank({
              before,
              after,
              alternative: lowerIsBetter ? "greater" : "less",
            }),
          },
  };
}
