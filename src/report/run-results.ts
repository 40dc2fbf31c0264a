import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { RunEndEvent, RunnerEvent } from "../results/runner-events.ts";

/**
 * What a report of the whole run writes from: the `run-end` event's result, or — for a run
 * that keeps its summary only (`keepResults: false`) — its cases gathered from the
 * `test-case-end` events as they finished, with those a resumed run reused (which the
 * `run-end` event carries), in index order. A report so still holds every case of the run
 * (or, with `keep`, those it shows), while the run itself keeps none.
 * @example
 * const results = gatherRunResults();
 * // in onEvent: results.observe(event); at run-end: write(results.of(event).result)
 */
export function gatherRunResults(options: { keep?: (result: TestResult) => boolean } = {}): {
  observe(event: RunnerEvent): void;
  /** The run's result to report, and how many of its cases `keep` left out. */
  of(event: RunEndEvent): { result: EvaluationResult; omitted: number };
} {
  const keep = options.keep ?? (() => true);
  let gathered: Map<number, TestResult> | null = null;
  let omitted = 0;
  return {
    observe(event) {
      if (event.type === "run-start") {
        gathered = event.keepsResults === false ? new Map() : null;
        omitted = 0;
      } else if (event.type === "test-case-end" && gathered !== null) {
        if (keep(event.result)) gathered.set(event.result.index, event.result);
        else omitted += 1;
      }
    },
    of(event) {
      if (gathered === null) return { result: event.result, omitted: 0 };
      const all = new Map(gathered);
      let left = omitted;
      for (const reused of event.result.testResults) {
        if (all.has(reused.index)) continue;
        if (keep(reused)) all.set(reused.index, reused);
        else left += 1;
      }
      const testResults = [...all.values()].sort((left, right) => left.index - right.index);
      return { result: { ...event.result, testResults }, omitted: left };
    },
  };
}
