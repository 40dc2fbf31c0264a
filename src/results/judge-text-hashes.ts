import { metricsOfCase } from "./case-metrics.ts";
import type { TestResult } from "./evaluation-result.ts";
import type { MetricData } from "./metric-data.ts";
import type { SpanRecord } from "./trace-record.ts";

/**
 * The hashes of every judge prompt and answer a result's calls name (every trial, and the
 * metrics of a traced run's spans), each once, in order: what to read from a store's judge
 * texts to show or copy the result whole.
 */
export function judgeTextHashesOf(result: TestResult): string[] {
  const hashes = new Set<string>();
  const add = (metrics: readonly MetricData[]) => {
    for (const metric of metrics) {
      for (const call of metric.calls ?? []) {
        if (call.promptHash !== undefined) hashes.add(call.promptHash);
        if (call.answerHash !== undefined) hashes.add(call.answerHash);
      }
    }
  };
  const addSpans = (spans: readonly SpanRecord[]) => {
    for (const span of spans) {
      add(span.metricsData);
      addSpans(span.children);
    }
  };
  add(result.metricsData);
  add(metricsOfCase(result));
  if (result.trace !== undefined) {
    add(result.trace.metricsData);
    addSpans(result.trace.spans);
  }
  return [...hashes];
}
