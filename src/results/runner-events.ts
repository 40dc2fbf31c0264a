import type { EvaluationResult, TestResult } from "./evaluation-result.ts";
import type { MetricData } from "./metric-data.ts";

/** A run begins. */
export interface RunStartEvent {
  type: "run-start";
  runId: string;
  identifier: string | null;
  /** Test cases in the run, resumed ones included (`finished` starts at `resumedTestCases`). */
  totalTestCases: number;
  /** Cases taken from an earlier run (resume): already finished. */
  resumedTestCases: number;
  metricNames: string[];
  startedAt: string;
}

/** One metric finished on one test case (one trial). */
export interface MetricEndEvent {
  type: "metric-end";
  runId: string;
  testCaseIndex: number;
  trial: number;
  metric: MetricData;
}

/** One test case finished (all metrics, all trials). */
export interface TestCaseEndEvent {
  type: "test-case-end";
  runId: string;
  result: TestResult;
  /** Hash of the test case and metric configuration (what resume compares). */
  fingerprint: string;
  /** Test cases finished so far, of `totalTestCases`. */
  finished: number;
  /** Judge spending so far in the run. */
  judgeCalls: number;
  costUsd: number | null;
}

/** The run ended (completed, interrupted, quota exhausted or failed). */
export interface RunEndEvent {
  type: "run-end";
  runId: string;
  result: EvaluationResult;
  /** What to tell the user when the run did not complete, e.g. how to resume. */
  message: string | null;
}

/** Everything reporters listen to. */
export type RunnerEvent = RunStartEvent | MetricEndEvent | TestCaseEndEvent | RunEndEvent;

/** Something that consumes runner events (console report, progress, store writer, …). */
export interface RunReporter {
  onEvent(event: RunnerEvent): void;
}
