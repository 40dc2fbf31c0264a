import { expect, type MatcherState, type RunnerTestCase } from "vitest";
import type { BaseMetric } from "../metrics/base-metric.ts";
import { showName } from "../report/format.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { type AssertTestOptions, runAssertion } from "./run-assertion.ts";
import { currentTest } from "./test-context.ts";
import { describeFailedMetrics } from "./verdict-assertion-error.ts";

declare module "vitest" {
  interface Assertion<R extends void | Promise<void> = void, T = unknown> {
    /**
     * Scores the received test case with the metrics and fails when a metric fails its
     * threshold or errors; await it. The same as `assertTest`, as a matcher.
     * @example
     * await expect({ input: "Hi!", actualOutput: "Hello!" }).toPass([new ToxicityMetric()]);
     */
    toPass(metrics: ReadonlyArray<BaseMetric<object>>, options?: AssertTestOptions): Promise<void>;
  }
}

/**
 * The `toPass` matcher, for `expect.extend` (importing `verdict/vitest` registers it).
 * Configuration errors and an exhausted quota are thrown as they are, with or without `.not`.
 * @example
 * expect.extend({ toPass });
 * await expect(testCase).toPass([new BiasMetric()], { cache: false });
 */
export async function toPass(
  this: MatcherState,
  received: LLMTestCase | LLMTestCaseFields,
  metrics: ReadonlyArray<BaseMetric<object>>,
  options: AssertTestOptions = {},
): Promise<{ pass: boolean; message: () => string }> {
  // Vitest gives matchers a `task`: the right one from the context's `expect`, but from the
  // global `expect` only a guess (the last test started), which currentTest() does not trust.
  const task = currentTest({
    task: options.task,
    boundTask: (this as { task?: RunnerTestCase }).task,
    caller: "toPass",
  });
  const outcome = await runAssertion({ testCase: received, metrics, options, task });
  if (outcome.error) throw outcome.error;
  const result = outcome.result;
  return {
    pass: !outcome.failed,
    message: () =>
      outcome.failed && result
        ? describeFailedMetrics({ result })
        : `expected test case "${showName(result?.name ?? "")}" to fail a metric, but every metric passed.`,
  };
}

/** Registers {@link toPass} on Vitest's `expect`. Importing `verdict/vitest` calls it. */
export function registerToPass(): void {
  expect.extend({ toPass });
}
