import type { EvaluationResult } from "../results/evaluation-result.ts";
import type { ComponentEvaluateOptions } from "./evaluate-components.ts";
import type { EvaluateOptions } from "./evaluate-test-cases.ts";

export type { EvaluateOptions } from "./evaluate-test-cases.ts";

/**
 * Scores every test case with every metric, sharing one judge scheduler (concurrency,
 * retries, identical requests asked once, a persistent cache), writing each finished case
 * to the store as it finishes, and reporting progress and a final report.
 * @example
 * const result = await evaluate({
 *   testCases: [{ input: "How is Sarah?", actualOutput: "Sarah always meant well…" }],
 *   metrics: [new ToxicityMetric(), new BiasMetric()],
 * });
 * console.log(result.summary.metrics);
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluationResult>;
/**
 * Component-level run: calls the application once per golden under a fresh trace, then
 * scores each observed span's metrics and the trace-level metrics; each result carries the
 * span tree in `trace`. See `evaluateComponents`.
 * @example
 * const result = await evaluate({
 *   goldens: [new Golden({ input: "What if these shoes don't fit?" })],
 *   observedCallback: (input) => answerQuestion(String(input)),
 * });
 * console.log(result.testResults[0]?.trace);
 */
export async function evaluate(options: ComponentEvaluateOptions): Promise<EvaluationResult>;
export async function evaluate(
  options: EvaluateOptions | ComponentEvaluateOptions,
): Promise<EvaluationResult> {
  // The engine (scheduler, store, reporters, batches) is loaded on the first run, not by
  // `import "verdict"`: a script that only calls `metric.measure()` never loads it.
  if ("goldens" in options || "observedCallback" in options) {
    const { evaluateComponents } = await import("./evaluate-components.ts");
    return evaluateComponents(options as ComponentEvaluateOptions);
  }
  const { evaluateTestCases } = await import("./evaluate-test-cases.ts");
  return evaluateTestCases(options);
}
