import type { BaseMetric } from "../metrics/base-metric.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { type AssertTestOptions, runAssertion } from "./run-assertion.ts";
import { currentTest } from "./test-context.ts";
import { VerdictAssertionError } from "./verdict-assertion-error.ts";

/**
 * Scores one test case with the metrics inside a Vitest test, and fails the test when a metric
 * fails its threshold or errors. The error lists each failing metric with its score,
 * threshold, reason and error. Whatever the outcome, the result is attached to the test's
 * `task.meta.verdict`, where `VerdictReporter` (and `verdict test run`) gathers it into one
 * stored run. All assertions of a worker process share one judge scheduler and the judge
 * cache; options default to the `VERDICT_*` variables that `verdict test run` sets.
 *
 * The result is filed under the test whose async context called it, also in concurrent tests,
 * once verdict's setup file runs (`verdict test run` adds it; with plain `vitest`, add
 * `"verdict/vitest/setup"` to `setupFiles`). Without it, when several tests run at once, it
 * throws a `ConfigError` rather than guess: pass `{ task }` from the test context then.
 *
 * Configuration problems (no judge key, unknown model) and an exhausted quota are thrown as
 * they are (`ConfigError`, `JudgeCallError`).
 * @returns the case's result, when it passed.
 * @example
 * import { test } from "vitest";
 * import { LLMTestCase, ToxicityMetric } from "verdict";
 * import { assertTest } from "verdict/vitest";
 *
 * test("greets politely", async () => {
 *   const testCase = new LLMTestCase({ input: "Hi!", actualOutput: await myApp("Hi!") });
 *   await assertTest(testCase, [new ToxicityMetric({ threshold: 0.5 })]);
 * });
 */
export async function assertTest(
  testCase: LLMTestCase | LLMTestCaseFields,
  metrics: ReadonlyArray<BaseMetric<object>>,
  options: AssertTestOptions = {},
): Promise<TestResult> {
  const outcome = await runAssertion({
    testCase,
    metrics,
    options,
    task: currentTest({ task: options.task, caller: "assertTest" }),
  });
  if (outcome.error) throw outcome.error;
  const result = outcome.result as TestResult;
  if (outcome.failed) throw new VerdictAssertionError({ result });
  return result;
}
