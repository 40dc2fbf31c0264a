import { ConfigError } from "../errors/config-error.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import { checkMetrics } from "./check-metrics.ts";
import { currentFrame, mergeFields } from "./span-context.ts";
import type { SpanUpdate } from "./span-update.ts";

/** What `updateCurrentTrace` records: the span fields, and metrics for the whole trace. */
export interface TraceUpdate extends SpanUpdate {
  /** More trace-level metrics, scored with those of evaluate()'s `metrics` option. */
  metrics?: ReadonlyArray<BaseMetric<object>>;
}

/**
 * Records fields on the whole trace (one run of the application on one golden): the
 * trace-level test case's output, expected output, retrieval context, …, and more
 * trace-level metrics. Does nothing when no trace is being collected; called outside any
 * observed function or trace it throws a ConfigError.
 * @example
 * updateCurrentTrace({ output: answer, retrievalContext: chunks, metrics: [new ToxicityMetric()] });
 */
export function updateCurrentTrace(update: TraceUpdate): void {
  const frame = currentFrame();
  if (frame?.trace === null) return;
  if (frame === undefined) {
    throw new ConfigError(
      "updateCurrentTrace() was called outside a trace: call it inside an observed function " +
        "(observe(fn, { … }) or @observe(…)), or inside the observedCallback that evaluate() runs.",
    );
  }
  if (typeof update !== "object" || update === null) {
    throw new ConfigError(
      `updateCurrentTrace() takes an object of fields, e.g. updateCurrentTrace({ output }); got ${typeof update}.`,
    );
  }
  const { trace } = frame;
  if (trace.sealed) return;
  const metrics =
    update.metrics === undefined
      ? []
      : checkMetrics({ metrics: update.metrics, where: "updateCurrentTrace({ metrics })" });
  trace.fields = mergeFields({
    recorded: trace.fields,
    update,
    caller: "updateCurrentTrace()",
    extraFields: ["metrics"],
  });
  for (const metric of metrics) {
    if (!trace.metrics.includes(metric)) trace.metrics.push(metric);
  }
  if (typeof update.name === "string" && update.name !== "") trace.name = update.name;
}
