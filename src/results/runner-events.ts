import type { EvaluationResult, TestResult } from "./evaluation-result.ts";
import type { JudgeText } from "./judge-text.ts";
import type { MetricData } from "./metric-data.ts";

/** A run begins. */
export interface RunStartEvent {
  type: "run-start";
  runId: string;
  identifier: string | null;
  /**
   * Test cases in the run, resumed ones included (`finished` starts at `resumedTestCases`). In
   * a run that learns its size as it goes (a Vitest run collecting files while the first
   * tests run), the cases known so far; see `totalFinal`.
   */
  totalTestCases: number;
  /**
   * `false` when more cases may come: later `test-case-end` events then carry the total as it
   * grows, until one says `totalFinal: true`. Absent: the total is final (evaluate()).
   */
  totalFinal?: boolean;
  /** Cases taken from an earlier run (resume): already finished. */
  resumedTestCases: number;
  metricNames: string[];
  startedAt: string;
  /**
   * `false` when the run keeps its summary only (`keepResults: false`): a reporter that needs
   * the cases gathers them from the `test-case-end` events, and the `run-end` event's result
   * holds only those a resumed run reused (see `gatherRunResults`). Absent: the run keeps them
   * all, and the `run-end` event's result has every one.
   */
  keepsResults?: boolean;
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
  /**
   * The texts of the judge prompts and answers the result's calls name by hash (`promptHash`,
   * `answerHash`), each once; absent when none were kept (`keepJudgeText: "hash"`).
   */
  judgeTexts?: JudgeText[];
  /** Test cases finished so far, of `totalTestCases`. */
  finished: number;
  /**
   * The run's total as known now, present only in a run whose total was not final at
   * `run-start` (it grows as a Vitest run collects its files).
   */
  totalTestCases?: number;
  /** With `totalTestCases`: whether that total is final. */
  totalFinal?: boolean;
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

/** A provider batch of judge requests changed (`evaluate({ batch: true })`). */
export interface JudgeBatchEvent {
  type: "judge-batch";
  runId: string;
  /** The judge whose requests the batch holds. */
  judge: string;
  /** Who runs it, e.g. `"openai.batch"`. */
  provider: string;
  /** The provider's id of the batch; `null` when none was made (`"direct"`). */
  batchId: string | null;
  /**
   * `"submitted"`: a new batch; `"resumed"`: a batch an earlier run submitted, polled again;
   * `"status"`: its latest status; `"ended"`: its results were read; `"direct"`: requests
   * sent directly instead (the batch could not be made, or its lines failed or expired).
   */
  event: "submitted" | "resumed" | "status" | "ended" | "direct";
  /** The provider's word: `validating`, `in_progress`, `finalizing`, `completed`, `expired`, … */
  providerStatus: string | null;
  /** Requests of this run in the batch (or sent directly). */
  lines: number;
  /** Line counts as the provider reports them. */
  counts: { total: number; completed: number; failed: number } | null;
  /** Why requests went directly, for `"direct"`. */
  message?: string;
}

/** Everything reporters listen to. */
export type RunnerEvent =
  | RunStartEvent
  | MetricEndEvent
  | TestCaseEndEvent
  | JudgeBatchEvent
  | RunEndEvent;

/** Something that consumes runner events (console report, progress, store writer, …). */
export interface RunReporter {
  onEvent(event: RunnerEvent): void;
}
