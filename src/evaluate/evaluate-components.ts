import { createHash } from "node:crypto";
import { ConfigError } from "../errors/config-error.ts";
import type { JudgeModel } from "../judge/judge-model.ts";
import { resolveJudge } from "../judge/resolve-model.ts";
import type { BaseMetric, MetricRunResult } from "../metrics/base-metric.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { SpanRecord, TraceRecord } from "../results/trace-record.ts";
import { Golden, type GoldenFields } from "../test-case/golden.ts";
import type { Content } from "../test-case/image.ts";
import { describeTestCase, type LLMTestCase } from "../test-case/llm-test-case.ts";
import { checkMetrics } from "../tracing/check-metrics.ts";
import { collectTrace, type LiveSpan } from "../tracing/span-context.ts";
import { buildTestResult, contentForReport, fingerprintTestCase } from "./build-test-result.ts";
import { buildTraceRecord, type ScoredPart } from "./build-trace-record.ts";
import { erroredMetricData, planComponentJobs } from "./plan-component-jobs.ts";
import { runMetrics } from "./run-metrics.ts";
import {
  checkRunOptions,
  describeRunOptions,
  type RunOptions,
  type RunSession,
  runSession,
} from "./run-session.ts";

/** Options of a component-level run: evaluate({ goldens, observedCallback, … }). */
export interface ComponentEvaluateOptions extends RunOptions {
  /** The inputs to run the application on. Plain objects are made into goldens. */
  goldens: ReadonlyArray<Golden | GoldenFields>;
  /**
   * The application: called once per golden (and trial) under a fresh trace, with the
   * golden's input and the golden. Sync or async; what it returns is the trace's output.
   */
  observedCallback: (input: Content, golden: Golden) => unknown;
  /**
   * Trace-level metrics, scored on the test case built from each trace (the golden's input,
   * the application's output, …). Spans bring their own with `observe(fn, { metrics })`.
   */
  metrics?: ReadonlyArray<BaseMetric<object>>;
}

/** Whether evaluate() was given goldens and an application rather than test cases. */
export function isComponentRun(options: object): options is ComponentEvaluateOptions {
  return "goldens" in options || "observedCallback" in options;
}

/** Name of the result that reports an application that threw when no metric can carry it. */
const APPLICATION = "Application";

/** Resolves each metric's judge once per distinct model, as evaluate() does, on demand. */
function createJudgeResolver(env: NodeJS.ProcessEnv) {
  const bySpec = new Map<unknown, Promise<JudgeModel>>();
  return (metric: BaseMetric<object>): Promise<JudgeModel> => {
    const spec = metric.model ?? env.VERDICT_MODEL ?? null;
    let judge = bySpec.get(spec);
    if (!judge) {
      judge = resolveJudge({ model: metric.model, env });
      bySpec.set(spec, judge);
    }
    return judge;
  };
}

function hasMetrics(spans: readonly SpanRecord[]): boolean {
  return spans.some((span) => span.metricsData.length > 0 || hasMetrics(span.children));
}

function traceHasMetrics(trace: TraceRecord | undefined): boolean {
  return trace !== undefined && (trace.metricsData.length > 0 || hasMetrics(trace.spans));
}

/**
 * Component-level evaluation: runs the application once per golden under a fresh trace
 * (goldens concurrently, in the same window and through the same judge scheduler as any
 * evaluate() run), then scores every observed span's metrics on the test case the span was
 * given (`updateCurrentSpan({ testCase })`) and the trace-level metrics on the test case of
 * the whole run. Each golden gives one result whose `metricsData` holds the trace-level
 * metrics and every span's (named `"<span> › <metric>"`) and whose `trace` holds the span
 * tree. A span with metrics but no test case, or an application that throws, is reported
 * as errored, and the run goes on. With `repeat`, `trace` is the first trial's.
 * @example
 * const result = await evaluate({
 *   goldens: [new Golden({ input: "What if these shoes don't fit?" })],
 *   observedCallback: (input) => answerQuestion(String(input)),
 *   metrics: [new AnswerRelevancyMetric()],
 * });
 */
export async function evaluateComponents(
  options: ComponentEvaluateOptions,
): Promise<EvaluationResult> {
  const startedAt = Date.now();
  const env = options.env ?? process.env;
  const repeat = options.repeat ?? 1;
  if ("testCases" in options) {
    throw new ConfigError(
      "evaluate() takes either testCases, or goldens with an observedCallback: not both.",
    );
  }
  if (!Array.isArray(options.goldens)) {
    throw new ConfigError(
      "evaluate() needs goldens: an array of Golden or plain objects with an input.",
    );
  }
  if (typeof options.observedCallback !== "function") {
    throw new ConfigError(
      "evaluate({ goldens }) needs observedCallback: the application, called with each golden's input.",
    );
  }
  const traceMetrics = checkMetrics({
    metrics: options.metrics ?? [],
    where: "evaluate({ metrics })",
  });
  checkRunOptions(options);
  const goldens = options.goldens.map((golden) =>
    golden instanceof Golden ? golden : new Golden(golden),
  );
  const resolveJudgeOf = createJudgeResolver(env);
  const judges = new Map<BaseMetric<object>, JudgeModel>();
  for (const metric of traceMetrics) judges.set(metric, await resolveJudgeOf(metric));
  const fingerprints = goldens.map((golden) =>
    createHash("sha256")
      .update("component-run\n")
      .update(
        fingerprintTestCase({
          testCase: golden.toTestCase(),
          metrics: traceMetrics,
          judges,
          repeat,
        }),
      )
      .digest("hex"),
  );
  // `{ observedCallback: (input) => … }` names the arrow after the property: not a name.
  const callbackName =
    options.observedCallback.name && options.observedCallback.name !== "observedCallback"
      ? options.observedCallback.name
      : "trace";

  const scoreGolden = async (index: number, session: RunSession) => {
    const golden = goldens[index] as Golden;
    const caseName = describeTestCase(golden, index);
    const trials: Array<{ trial: number; metricsData: MetricData[] }> = [];
    let resultCase: LLMTestCase | null = null;
    let traceRecord: TraceRecord | undefined;
    for (let trial = 0; trial < repeat; trial++) {
      const collected = await collectTrace({
        run: () => options.observedCallback(golden.input, golden),
      });
      const { jobs, appError, traceCase, spanCases } = planComponentJobs({
        collected,
        golden,
        caseName,
        traceMetrics,
      });
      try {
        for (const job of jobs) {
          if (!job.blocked && !judges.has(job.metric)) {
            judges.set(job.metric, await resolveJudgeOf(job.metric));
          }
        }
      } catch (error) {
        session.fail(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const outcomes = await runMetrics({
        jobs,
        run: async (job): Promise<MetricRunResult> => {
          const name = job.span ? `${job.span.name} › ${job.metric.name}` : job.metric.name;
          if (job.blocked !== null || job.testCase === null) {
            const { threshold, strictMode, lowerIsBetter } = job.metric;
            const message = job.blocked ?? "No test case.";
            return {
              data: erroredMetricData({ name, threshold, strictMode, lowerIsBetter, message }),
              error: null,
            };
          }
          const { data, error } = await job.metric.run(job.testCase, {
            judge: judges.get(job.metric) as JudgeModel,
            transport: session.scheduler,
            trial,
            signal: session.signal,
            testCaseName: job.testCaseName,
            ...(options.verbose !== undefined ? { verbose: options.verbose } : {}),
          });
          return { data: { ...data, name }, error };
        },
      });
      // Each outcome with the job it came from (none for the application's own error).
      const scored = outcomes.map((outcome, position) => ({ outcome, job: jobs[position] }));
      // An application that threw fails its golden even when no metric could say so.
      if (appError && !outcomes.some(({ data }) => data.success === false)) {
        const data = erroredMetricData({
          name: APPLICATION,
          threshold: null,
          strictMode: false,
          message: appError,
          success: false,
        });
        scored.unshift({ outcome: { data, error: null }, job: undefined });
      }
      const { kept, stopped } = session.keepOutcomes({
        index,
        trial,
        outcomes: scored.map(({ outcome }) => outcome),
      });
      if (stopped) return;

      if (trial === 0) {
        const traceScored: ScoredPart = { testCase: traceCase, metricsData: [] };
        const spansScored = new Map<LiveSpan, ScoredPart>();
        kept.forEach((data, position) => {
          const job = scored[position]?.job;
          if (data === null || job === undefined) return;
          if (job.span === null) {
            traceScored.metricsData.push(data);
            return;
          }
          const part = spansScored.get(job.span) ?? {
            testCase: spanCases.get(job.span) ?? null,
            metricsData: [],
          };
          // Inside its span, a result keeps the metric's own name.
          part.metricsData.push({ ...data, name: job.metric.name });
          spansScored.set(job.span, part);
        });
        traceRecord = buildTraceRecord({
          collected,
          defaultName:
            collected.trace.spans.length === 1
              ? (collected.trace.spans[0] as LiveSpan).name
              : callbackName,
          traceInput: contentForReport(golden.input),
          trace: traceScored,
          spans: spansScored,
        });
        resultCase = traceCase;
      }
      trials.push({ trial, metricsData: kept.filter((data) => data !== null) });
    }
    const result = buildTestResult({
      testCase: resultCase ?? golden.toTestCase(),
      index,
      trials,
      repeat,
    });
    session.finishCase(traceRecord ? { ...result, trace: traceRecord } : result);
  };

  return runSession({
    options,
    startedAt,
    total: goldens.length,
    fingerprints,
    metricNames: traceMetrics.map((metric) => metric.name),
    config: {
      mode: "components",
      metrics: traceMetrics.map((metric) => ({
        ...metric.config(),
        judge: judges.get(metric)?.name ?? null,
      })),
      goldens: goldens.length,
      ...describeRunOptions(options),
      repeat,
    },
    scoreCase: scoreGolden,
    checkFinished: (testResults) =>
      traceMetrics.length > 0 ||
      testResults.some(
        (result) => result.trace?.status === "errored" || traceHasMetrics(result.trace),
      )
        ? null
        : new ConfigError(
            "evaluate() found no metric to score: pass metrics: [...] (trace-level), give observed " +
              "functions metrics with observe(fn, { metrics: [...] }), or add them at run time with " +
              "updateCurrentTrace({ metrics: [...] }).",
          ),
  });
}
