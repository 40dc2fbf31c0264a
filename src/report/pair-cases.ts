import type { TestResult } from "../results/evaluation-result.ts";
import type { RunWithResults } from "./run-with-results.ts";

/**
 * Cases of the two runs paired by identity: a name unique in both runs pairs by name, a name
 * repeated in a run pairs by position, a name only one run has stays unpaired.
 */
export function pairCases(baseline: RunWithResults, candidate: RunWithResults) {
  const count = (results: TestResult[]) => {
    const counts = new Map<string, number>();
    for (const { name } of results) counts.set(name, (counts.get(name) ?? 0) + 1);
    return counts;
  };
  const inBaseline = count(baseline.results);
  const inCandidate = count(candidate.results);
  // A name in one run only has no counterpart (it is never paired by position); a name that
  // repeats in either run pairs by position.
  const keyOf = (result: TestResult, side: string) => {
    const [before, after] = [inBaseline.get(result.name) ?? 0, inCandidate.get(result.name) ?? 0];
    if (before === 1 && after === 1) return `name:${result.name}`;
    if (before === 0 || after === 0) return `only-${side}:${result.index}`;
    return `index:${result.index}`;
  };
  const candidates = new Map(
    candidate.results.map((result) => [keyOf(result, "candidate"), result]),
  );
  const pairs: Array<{ before: TestResult; after: TestResult }> = [];
  const unmatchedBaseline: string[] = [];
  const matched = new Set<TestResult>();
  for (const before of baseline.results) {
    const after = candidates.get(keyOf(before, "baseline"));
    if (after === undefined) {
      unmatchedBaseline.push(before.name);
      continue;
    }
    matched.add(after);
    pairs.push({ before, after });
  }
  const unmatchedCandidate = candidate.results
    .filter((result) => !matched.has(result))
    .map((result) => result.name);
  return { pairs, unmatched: { baseline: unmatchedBaseline, candidate: unmatchedCandidate } };
}

/** The paired cases of {@link pairCases}: each baseline case with its candidate. */
export type CasePairs = ReturnType<typeof pairCases>["pairs"];
