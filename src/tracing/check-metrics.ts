import { ConfigError } from "../errors/config-error.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";

/**
 * Whether `value` is a metric: an object with a name and a `run` method, so that metrics from
 * another copy of verdict (a user's module loaded beside the CLI's) count too.
 */
export function isMetric(value: unknown): value is BaseMetric<object> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { name?: unknown }).name === "string" &&
    typeof (value as { run?: unknown }).run === "function"
  );
}

/**
 * Checks that `metrics` is an array of metrics (objects with a name and a `run` method, so
 * that metrics from another copy of verdict are accepted too) and returns a copy.
 */
export function checkMetrics(options: {
  metrics: unknown;
  where: string;
}): Array<BaseMetric<object>> {
  const { metrics, where } = options;
  if (!Array.isArray(metrics) || !metrics.every(isMetric)) {
    throw new ConfigError(
      `${where} takes an array of metrics, e.g. [new AnswerRelevancyMetric()]; got ${Array.isArray(metrics) ? "an array with something else in it" : typeof metrics}.`,
    );
  }
  return [...metrics];
}
