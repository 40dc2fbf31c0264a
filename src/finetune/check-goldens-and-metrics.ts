import { ConfigError } from "../errors/config-error.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import { Golden, type GoldenFields } from "../test-case/golden.ts";

/**
 * Checks what a model is scored on while it trains: at least one golden and one metric.
 * Returns the goldens as `Golden`s (an invalid one throws the error `new Golden()` throws,
 * naming the field).
 */
export function checkGoldensAndMetrics(options: {
  goldens: ReadonlyArray<Golden | GoldenFields>;
  metrics: ReadonlyArray<BaseMetric<object>>;
  /** Who asks, e.g. `"evaluateCheckpoints()"`. */
  caller: string;
  /** What the goldens are for, said after "objects". */
  goldensFor: string;
}): Golden[] {
  const { caller } = options;
  if (!Array.isArray(options.goldens) || options.goldens.length === 0) {
    throw new ConfigError(
      `${caller} needs goldens: a non-empty array of Golden or { input } objects${options.goldensFor}.`,
    );
  }
  if (!Array.isArray(options.metrics) || options.metrics.length === 0) {
    throw new ConfigError(
      `${caller} needs metrics: an array with at least one metric, e.g. [new ToxicityMetric()].`,
    );
  }
  return options.goldens.map((golden) => (golden instanceof Golden ? golden : new Golden(golden)));
}
