import { createHash, randomUUID } from "node:crypto";
import { ConfigError } from "../errors/config-error.ts";
import type { JudgeTransport } from "../judge/judge-transport.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type { MetricRunResult } from "../metrics/metric-run-result.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { SpanRecord, TraceRecord } from "../results/trace-record.ts";
import { Golden, type GoldenFields } from "../test-case/golden.ts";
import type { Content } from "../test-case/image.ts";
import { describeTestCase, type LLMTestCase } from "../test-case/llm-test-case.ts";
import { checkMetrics } from "../tracing/check-metrics.ts";
import { collectTrace, type LiveSpan } from "../tracing/span-context.ts";
import { buildTestResult, contentForReport, fingerprintTestCase } from "./build-test-result.ts";
import { buildTraceRecord, type ScoredPart } from "./build-trace-record.ts";
import { type CheckedCase, checkTestCases, firstInvalidCase } from "./check-test-cases.ts";
import { finishInvalidCase } from "./finish-invalid-case.ts";
import { JudgeResolver } from "./judge-resolver.ts";
import { erroredMetricData, planComponentJobs } from "./plan-component-jobs.ts";
import { runMetrics } from "./run-metrics.ts";
import { checkRunOptions, describeRunOptions, type RunOptions } from "./run-options.ts";
import { type RunSession, runSession } from "./run-session.ts";

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
/** The result that reports an invalid golden when no trace-level metric can carry it. */
const INVALID_GOLDEN = { name: "Golden", threshold: null, strictMode: false, lowerIsBetter: false };

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
  const traceMetrics = checkComponentOptions(options);
  const goldens = await checkTestCases({
    values: options.goldens,
    make: (value) => (value instanceof Golden ? value : new Golden(value as GoldenFields)),
    kind: "Golden",
    list: "goldens",
  });
  if (!options.ignoreErrors) {
    const invalid = firstInvalidCase(goldens, "Golden");
    if (invalid) throw invalid;
  }
  const repeat = options.repeat ?? 1;
  const judges = new JudgeResolver(options.env ?? process.env);
  await judges.resolve(traceMetrics);
  const described = judges.describe(traceMetrics);
  const fingerprintOf = (index: number) => {
    const golden = goldens[index]?.testCase ?? null;
    return golden === null
      ? `invalid:${randomUUID()}`
      : createHash("sha256")
          .update("component-run\n")
          .update(
            fingerprintTestCase({ testCase: golden.toTestCase(), metrics: described, repeat }),
          )
          .digest("hex");
  };
  // Whether a finished case had a metric to score (or an errored trace to say why not).
  let scored = false;
  const scoreGolden = async (index: number, session: RunSession) => {
    const entry = goldens[index] as CheckedCase<Golden>;
    if (entry.error !== null) {
      // No application run: its trace-level metrics (or one row, when only spans would have
      // brought metrics) are errored with the golden's error.
      const metrics = traceMetrics.length > 0 ? traceMetrics : [INVALID_GOLDEN];
      await finishInvalidCase({ entry, index, metrics, repeat, session, note: "Not run." });
      return;
    }
    const golden = entry.testCase;
    const trials: Array<{ trial: number; metricsData: MetricData[] }> = [];
    const caseStartedAt = performance.now();
    let first: { testCase: LLMTestCase | null; trace: TraceRecord } | null = null;
    // Every request of the golden queues by the golden's place: early ones finish early.
    const transport = session.scheduler.forCase();
    for (let trial = 0; trial < repeat; trial++) {
      const scored = await scoreTrial({
        options,
        golden,
        index,
        trial,
        traceMetrics,
        judges,
        session,
        transport,
      });
      if (scored === null) return;
      first ??= scored.first;
      trials.push({ trial, metricsData: scored.metricsData });
    }
    const result = buildTestResult({
      testCase: first?.testCase ?? golden.toTestCase(),
      index,
      trials,
      repeat,
      durationMs: Math.round(performance.now() - caseStartedAt),
    });
    const finished = first ? { ...result, trace: first.trace } : result;
    if (hadSomethingToScore(finished)) scored = true;
    await session.finishCase(finished);
  };

  return runSession({
    options,
    startedAt,
    total: goldens.length,
    fingerprintOf,
    metricNames: traceMetrics.map((metric) => metric.name),
    config: {
      mode: "components",
      metrics: described,
      goldens: goldens.length,
      ...describeRunOptions(options),
      repeat,
    },
    scoreCase: scoreGolden,
    checkFinished: (reused) =>
      traceMetrics.length > 0 ||
      goldens.some((entry) => entry.error !== null) ||
      scored ||
      reused.some(hadSomethingToScore)
        ? null
        : new ConfigError(
            "evaluate() found no metric to score: pass metrics: [...] (trace-level), give observed " +
              "functions metrics with observe(fn, { metrics: [...] }), or add them at run time with " +
              "updateCurrentTrace({ metrics: [...] }).",
          ),
  });
}

/** Whether a finished golden had a metric to score, or an errored trace that says why not. */
function hadSomethingToScore(result: TestResult): boolean {
  return result.trace?.status === "errored" || traceHasMetrics(result.trace);
}

/** Checks a component run's own options before anything runs; returns its trace metrics. */
function checkComponentOptions(
  options: ComponentEvaluateOptions,
): ReadonlyArray<BaseMetric<object>> {
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
  return traceMetrics;
}

/**
 * One trial of one golden: runs the application under a fresh trace, scores every metric it
 * asked for, and (first trial only) builds the span tree with each span's results. `null`
 * when the run stopped.
 */
async function scoreTrial(options: {
  options: ComponentEvaluateOptions;
  golden: Golden;
  index: number;
  trial: number;
  traceMetrics: ReadonlyArray<BaseMetric<object>>;
  judges: JudgeResolver;
  session: RunSession;
  transport: JudgeTransport;
}): Promise<{
  metricsData: MetricData[];
  first: { testCase: LLMTestCase | null; trace: TraceRecord } | null;
} | null> {
  const { golden, index, trial, judges, session } = options;
  const collected = await collectTrace({
    run: () => options.options.observedCallback(golden.input, golden),
  });
  const { jobs, appError, traceCase, spanCases } = planComponentJobs({
    collected,
    golden,
    caseName: describeTestCase(golden, index),
    traceMetrics: options.traceMetrics,
  });
  try {
    await judges.resolve(jobs.filter((job) => !job.blocked).map((job) => job.metric));
  } catch (error) {
    session.fail(error instanceof Error ? error : new Error(String(error)));
    return null;
  }
  const outcomes = await runComponentJobs({
    jobs,
    trial,
    judges,
    session,
    transport: options.transport,
    verbose: options.options.verbose,
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
  const { kept, metricsData, stopped } = session.keepOutcomes({
    index,
    trial,
    outcomes: scored.map(({ outcome }) => outcome),
  });
  if (stopped) return null;
  if (trial > 0) return { metricsData, first: null };
  const trace = recordTrace({
    collected,
    golden,
    callbackName: callbackNameOf(options.options.observedCallback),
    traceCase,
    spanCases,
    kept: kept.map((data, position) => ({ data, job: scored[position]?.job })),
  });
  return { metricsData, first: { testCase: traceCase, trace } };
}

// `{ observedCallback: (input) => … }` names the arrow after the property: not a name.
function callbackNameOf(callback: ComponentEvaluateOptions["observedCallback"]): string {
  return callback.name && callback.name !== "observedCallback" ? callback.name : "trace";
}

type ComponentJob = ReturnType<typeof planComponentJobs>["jobs"][number];

/** The span tree of a trial, each span with the results of its own metrics. */
function recordTrace(options: {
  collected: Awaited<ReturnType<typeof collectTrace>>;
  golden: Golden;
  callbackName: string;
  traceCase: LLMTestCase | null;
  spanCases: ReturnType<typeof planComponentJobs>["spanCases"];
  kept: Array<{ data: MetricData | null; job: ComponentJob | undefined }>;
}): TraceRecord {
  const { collected, spanCases } = options;
  const traceScored: ScoredPart = { testCase: options.traceCase, metricsData: [] };
  const spansScored = new Map<LiveSpan, ScoredPart>();
  for (const { data, job } of options.kept) {
    if (data === null || job === undefined) continue;
    if (job.span === null) {
      traceScored.metricsData.push(data);
      continue;
    }
    const part = spansScored.get(job.span) ?? {
      testCase: spanCases.get(job.span) ?? null,
      metricsData: [],
    };
    // Inside its span, a result keeps the metric's own name.
    part.metricsData.push({ ...data, name: job.metric.name });
    spansScored.set(job.span, part);
  }
  return buildTraceRecord({
    collected,
    defaultName:
      collected.trace.spans.length === 1
        ? (collected.trace.spans[0] as LiveSpan).name
        : options.callbackName,
    traceInput: contentForReport(options.golden.input),
    trace: traceScored,
    spans: spansScored,
  });
}

/** Scores each job of a trial; a blocked job (no test case, …) is an errored result, not a call. */
function runComponentJobs(options: {
  jobs: readonly ComponentJob[];
  trial: number;
  judges: JudgeResolver;
  session: RunSession;
  transport: JudgeTransport;
  verbose: boolean | undefined;
}): Promise<MetricRunResult[]> {
  const { jobs, trial, judges, session, transport, verbose } = options;
  return runMetrics({
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
      const { data, error, judgeTexts } = await job.metric.run(job.testCase, {
        judge: judges.judgeOf(job.metric),
        transport,
        trial,
        signal: session.signal,
        judgeText: session.judgeText,
        testCaseName: job.testCaseName,
        ...(verbose !== undefined ? { verbose } : {}),
      });
      return { data: { ...data, name }, error, judgeTexts };
    },
  });
}
