import { type BaseMetric, ConfigError, type LLMTestCase } from "verdict";

/**
 * Measures one test case and prints the outcome. With no judge configured (no key, no
 * model) it prints one line saying what to set and exits with code 2.
 */
export async function runExample(options: {
  metric: BaseMetric<object>;
  testCase: LLMTestCase;
}): Promise<void> {
  const { metric, testCase } = options;
  try {
    await metric.measure(testCase);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`No judge configured: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  console.log(
    `${metric.name}: score ${metric.score} (${metric.success ? "passed" : "failed"}, threshold ${metric.threshold})`,
  );
  console.log(`Reason: ${metric.reason}`);
  console.log(
    `Judge: ${metric.evaluationModel}, ${metric.judgeCalls} calls, cost ${metric.evaluationCost ?? "unknown"} USD`,
  );
}
