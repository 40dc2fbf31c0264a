import { formatCount, formatPlural } from "./format.ts";
import { type MetricVerdict, verdictOf } from "./metric-verdict.ts";
import type { CasePairs } from "./pair-cases.ts";

/** A test case whose verdict on a metric changed between the runs. */
export interface VerdictChange {
  testCase: string;
  metric: string;
  from: MetricVerdict;
  to: MetricVerdict;
  baselineScore: number | null;
  candidateScore: number | null;
  /** The case's `index` in each run (its key in `verdict view`). */
  baselineIndex: number;
  candidateIndex: number;
  /** The metric's reason (or error) in each run. */
  baselineReason: string | null;
  candidateReason: string | null;
  /** The case's `actualOutput` in each run: what the judge was shown. */
  baselineOutput: string | null;
  candidateOutput: string | null;
}

/** The verdict changes of every metric the paired cases both have, case by case. */
export function findChanges(pairs: CasePairs): VerdictChange[] {
  const changes: VerdictChange[] = [];
  for (const { before, after } of pairs) {
    for (const old of before.metricsData) {
      const now = after.metricsData.find((data) => data.name === old.name);
      if (now === undefined || verdictOf(old) === verdictOf(now)) continue;
      changes.push({
        testCase: before.name,
        metric: old.name,
        from: verdictOf(old),
        to: verdictOf(now),
        baselineScore: old.score,
        candidateScore: now.score,
        baselineIndex: before.index,
        candidateIndex: after.index,
        baselineReason: old.reason ?? old.error,
        candidateReason: now.reason ?? now.error,
        baselineOutput: before.actualOutput,
        candidateOutput: after.actualOutput,
      });
    }
  }
  return changes;
}

/**
 * How many changes there are, in words: the test cases that changed verdict, and the verdicts
 * when a case changed on more than one metric, e.g. `"3"` or `"2 cases, 3 verdicts"`.
 */
export function countChanges(changes: readonly VerdictChange[]): string {
  const cases = new Set(
    changes.map((change) => `${change.baselineIndex}\u0000${change.candidateIndex}`),
  ).size;
  return cases === changes.length
    ? formatCount(cases)
    : `${formatPlural(cases, "case")}, ${formatPlural(changes.length, "verdict")}`;
}
