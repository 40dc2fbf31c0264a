import { ConfigError } from "../errors/config-error.ts";
import type { CostEstimate } from "../results/cost-estimate.ts";
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
export async function evaluate(
  options: EvaluateOptions & { dryRun?: false | undefined },
): Promise<EvaluationResult>;
/**
 * A dry run: asks no judge and stores nothing; resolves to what the run would spend (judge
 * calls, tokens and cost per metric and in total, each with its range), counting what the
 * judge cache answers as free, and prints it unless `display` is `"none"`. See docs/cost.md.
 * @example
 * const estimate = await evaluate({ testCases, metrics, dryRun: true });
 * console.log(estimate.total.costUsd); // { low: 0.21, expected: 0.38, high: 0.94 }
 */
export async function evaluate(options: EvaluateOptions & { dryRun: true }): Promise<CostEstimate>;
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
/** A run, or a dry run when `dryRun` is true (see the other signatures). */
export async function evaluate(options: EvaluateOptions): Promise<EvaluationResult | CostEstimate>;
export async function evaluate(
  options: EvaluateOptions | ComponentEvaluateOptions,
): Promise<EvaluationResult | CostEstimate> {
  // The engine (scheduler, store, reporters, batches) is loaded on the first run, not by
  // `import "verdict"`: a script that only calls `metric.measure()` never loads it.
  if (typeof options === "object" && options !== null) {
    const { checkEvaluateOptionNames } = await import("./check-evaluate-option-names.ts");
    checkEvaluateOptionNames(options);
  }
  if ("goldens" in options || "observedCallback" in options) {
    if ((options as { dryRun?: unknown }).dryRun === true) {
      throw new ConfigError(
        "A dry run needs the outputs to judge, and a component run makes them by calling your application: run evaluate({ testCases, metrics, dryRun: true }) on test cases with their outputs instead.",
      );
    }
    const { evaluateComponents } = await import("./evaluate-components.ts");
    return evaluateComponents(options as ComponentEvaluateOptions);
  }
  if (options.dryRun === true) {
    const { estimateRun } = await import("./dry-run/estimate-run.ts");
    return estimateRun(options);
  }
  const { evaluateTestCases } = await import("./evaluate-test-cases.ts");
  return evaluateTestCases(options);
}
