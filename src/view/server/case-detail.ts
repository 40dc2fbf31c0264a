import type { ResultImage } from "../../results/evaluation-result.ts";
import type { MetricData } from "../../results/metric-data.ts";
import type { SpanRecord, TraceRecord } from "../../results/trace-record.ts";
import type { CaseDetail, ImageView, MetricDetailView, SpanView } from "../case-views.ts";
import type { CaseEntry } from "./case-rows.ts";
import type { LoadedRun } from "./loaded-run.ts";
import { toStepViews } from "./step-tables.ts";

/** The judge texts a case page shows, by hash (see `getJudgeTexts`). */
export type JudgeTextLookup = ReadonlyMap<string, string>;

const NO_TEXTS: JudgeTextLookup = new Map();

/**
 * A metric result on the case page: figures, reason, steps as tables, judge calls with their
 * prompts and answers (those `texts` holds).
 */
export function toMetricDetailView(
  metric: MetricData,
  texts: JudgeTextLookup = NO_TEXTS,
): MetricDetailView {
  return {
    name: metric.name,
    score: metric.score,
    threshold: metric.threshold,
    success: metric.success,
    lowerIsBetter: metric.lowerIsBetter,
    reason: metric.reason,
    error: metric.error,
    evaluationModel: metric.evaluationModel,
    costUsd: metric.evaluationCost,
    inputTokens: metric.inputTokens,
    outputTokens: metric.outputTokens,
    steps: toStepViews(metric),
    calls: (metric.calls ?? []).map((call) => ({
      ...call,
      prompt: call.promptHash === undefined ? null : (texts.get(call.promptHash) ?? null),
      answer: call.answerHash === undefined ? null : (texts.get(call.answerHash) ?? null),
    })),
  };
}

function toSpanView(span: SpanRecord, texts: JudgeTextLookup): SpanView {
  return {
    name: span.name,
    type: span.type,
    input: span.input,
    output: span.output,
    durationMs: span.durationMs,
    error: span.error,
    metrics: span.metricsData.map((metric) => toMetricDetailView(metric, texts)),
    children: span.children.map((child) => toSpanView(child, texts)),
  };
}

/** A traced run's tree: the trace itself (type `"trace"`) with its spans below. */
function toTraceView(trace: TraceRecord, texts: JudgeTextLookup): SpanView {
  return {
    name: trace.name,
    type: "trace",
    input: trace.input,
    output: trace.output,
    durationMs: trace.durationMs,
    error: trace.error,
    metrics: trace.metricsData.map((metric) => toMetricDetailView(metric, texts)),
    children: trace.spans.map((span) => toSpanView(span, texts)),
  };
}

/** The path the app loads the `number`-th image of a case from (1-based, over all its fields). */
export function imagePath(runId: string, key: string, number: number): string {
  return `/api/runs/${encodeURIComponent(runId)}/cases/${encodeURIComponent(key)}/images/${number}`;
}

function toImageView(options: {
  runId: string;
  key: string;
  image: ResultImage;
  number: number;
}): ImageView {
  const { image } = options;
  const served = image.data !== undefined || image.kind === "file";
  return {
    field: image.field,
    number: image.number,
    label: image.label,
    src: served ? imagePath(options.runId, options.key, options.number) : null,
    remoteUrl: image.kind === "url" ? image.label : null,
  };
}

/** The case page of `entry` in `loaded`, with the judge texts the store keeps for it. */
export function toCaseDetail(options: {
  loaded: LoadedRun;
  entry: CaseEntry;
  texts?: JudgeTextLookup;
}): CaseDetail {
  const { loaded, entry } = options;
  const texts = options.texts ?? NO_TEXTS;
  const metricView = (metric: MetricData) => toMetricDetailView(metric, texts);
  const { result } = entry;
  const previous = loaded.entries[entry.position - 2];
  const next = loaded.entries[entry.position];
  return {
    runId: loaded.runId,
    key: entry.key,
    position: entry.position,
    name: result.name,
    status: entry.status,
    input: result.input,
    actualOutput: result.actualOutput,
    expectedOutput: result.expectedOutput,
    context: result.context ?? null,
    retrievalContext: result.retrievalContext ?? null,
    file: result.file ?? null,
    tags: result.tags ?? [],
    images: result.images.map((image, position) =>
      toImageView({ runId: loaded.runId, key: entry.key, image, number: position + 1 }),
    ),
    metrics: result.metricsData.map(metricView),
    trials: result.trials.map((trial) => ({
      trial: trial.trial,
      success: trial.success,
      metrics: trial.metricsData.map(metricView),
    })),
    trace: result.trace === undefined ? null : toTraceView(result.trace, texts),
    previousKey: previous?.key ?? null,
    nextKey: next?.key ?? null,
    durationMs: result.durationMs ?? null,
  };
}
