import type { BaseMetric } from "../metrics/base-metric.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { Golden } from "../test-case/golden.ts";
import type { LLMTestCase } from "../test-case/llm-test-case.ts";
import { type CollectedTrace, describeThrown, type LiveSpan } from "../tracing/span-context.ts";
import { buildSpanTestCase, buildTraceTestCase } from "./trace-test-cases.ts";

/** One metric to score on a span or on the trace. */
export interface ComponentJob {
  metric: BaseMetric<object>;
  /** The span it belongs to; `null` for a trace-level metric. */
  span: LiveSpan | null;
  testCase: LLMTestCase | null;
  testCaseName: string;
  /** Why it cannot be scored (reported as its error), if so. */
  blocked: string | null;
}

/** What one application run gives to score. */
export interface ComponentPlan {
  /** Trace-level metrics first, then each span's, depth first in call order. */
  jobs: ComponentJob[];
  /** `"the application threw: …"` when it did. */
  appError: string | null;
  traceCase: LLMTestCase | null;
  spanCases: Map<LiveSpan, LLMTestCase | null>;
}

/**
 * Lists the metrics to score after one application run: the trace-level ones on the
 * trace's test case, and each span's on the span's. A metric that cannot be scored (the
 * application or the span threw, no or an invalid test case) carries the reason.
 */
export function planComponentJobs(options: {
  collected: CollectedTrace;
  golden: Golden;
  caseName: string;
  traceMetrics: ReadonlyArray<BaseMetric<object>>;
}): ComponentPlan {
  const { collected, golden, caseName } = options;
  const appError = collected.threw
    ? `the application threw: ${describeThrown(collected.error)}`
    : null;
  const jobs: ComponentJob[] = [];

  let traceCase: LLMTestCase | null = null;
  let traceCaseError: string | null = null;
  try {
    traceCase = buildTraceTestCase({ trace: collected.trace, golden, returned: collected.output });
  } catch (error) {
    traceCaseError = `The trace's test case is invalid: ${describeThrown(error)}`;
  }
  for (const metric of new Set([...options.traceMetrics, ...collected.trace.metrics])) {
    jobs.push({
      metric,
      span: null,
      testCase: traceCase,
      testCaseName: caseName,
      blocked: appError ?? traceCaseError,
    });
  }

  const spanCases = new Map<LiveSpan, LLMTestCase | null>();
  const visit = (span: LiveSpan) => {
    if (span.metrics.length > 0) {
      let testCase: LLMTestCase | null = null;
      let blocked =
        appError ??
        (span.durationMs === null
          ? `Span "${span.name}" had not finished when the application returned, so its metrics were not scored.`
          : span.error !== null
            ? `Span "${span.name}" threw: ${span.error}`
            : null);
      if (blocked === null) {
        try {
          testCase = buildSpanTestCase(span);
          if (testCase === null) {
            blocked = `Span "${span.name}" has metrics but no test case: call updateCurrentSpan({ testCase }) inside it, e.g. updateCurrentSpan({ testCase: { input, actualOutput } }).`;
          }
        } catch (error) {
          blocked = `Span "${span.name}" has an invalid test case: ${describeThrown(error)}`;
        }
      }
      spanCases.set(span, testCase);
      for (const metric of span.metrics) {
        jobs.push({ metric, span, testCase, testCaseName: `${caseName} › ${span.name}`, blocked });
      }
    }
    span.children.forEach(visit);
  };
  collected.trace.spans.forEach(visit);
  return { jobs, appError, traceCase, spanCases };
}

/** The result of a metric that could not be scored: no score, the reason as its error. */
export function erroredMetricData(options: {
  name: string;
  threshold: number | null;
  strictMode: boolean;
  /** @default false */
  lowerIsBetter?: boolean;
  message: string;
  /** @default false, or `null` for a score-only metric (as a metric that errors itself) */
  success?: boolean | null;
}): MetricData {
  return {
    name: options.name,
    threshold: options.threshold,
    success: options.success ?? (options.threshold === null ? null : false),
    score: null,
    reason: null,
    strictMode: options.strictMode,
    lowerIsBetter: options.lowerIsBetter ?? false,
    evaluationModel: null,
    error: options.message,
    evaluationCost: 0,
    inputTokens: 0,
    outputTokens: 0,
    verboseLogs: "",
    judgeCalls: 0,
    cachedJudgeCalls: 0,
    sharedJudgeCalls: 0,
    saved: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
  };
}
