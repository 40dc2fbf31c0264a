import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { RunEndEvent, RunnerEvent } from "../results/runner-events.ts";

/**
 * What a report of the whole run writes from: the `run-end` event's result, or — for a run
 * that keeps its summary only (`keepResults: false`) — that result with the cases gathered
 * from its `test-case-end` events, in index order. A file report so still holds every case
 * that finished in this process, while the run itself keeps none.
 * @example
 * const results = gatherRunResults();
 * reporter.onEvent = (event) => { results.observe(event); if (event.type === "run-end") write(results.of(event)); };
 */
export function gatherRunResults(): {
  observe(event: RunnerEvent): void;
  of(event: RunEndEvent): EvaluationResult;
} {
  let gathered: Map<number, TestResult> | null = null;
  return {
    observe(event) {
      if (event.type === "run-start") gathered = event.keepsResults === false ? new Map() : null;
      else if (event.type === "test-case-end") gathered?.set(event.result.index, event.result);
    },
    of(event) {
      if (gathered === null || event.result.testResults.length > 0) return event.result;
      const testResults = [...gathered.values()].sort((left, right) => left.index - right.index);
      return { ...event.result, testResults };
    },
  };
}
