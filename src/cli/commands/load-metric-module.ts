import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../../errors/config-error.ts";
import type { ModelSpec } from "../../judge/resolve-model.ts";
import type { BaseMetric } from "../../metrics/base-metric.ts";
import { NAMES_BUILT_BY_NAME } from "../../metrics/metrics-by-name.ts";
import { isMetric } from "../../tracing/check-metrics.ts";

type MetricClass = new (options?: Record<string, unknown>) => BaseMetric<object>;

/** A metric object (see `isMetric`) that also describes itself, as `calibrate` stores it. */
function isMetricObject(value: unknown): value is BaseMetric<object> {
  return isMetric(value) && typeof (value as { config?: unknown }).config === "function";
}

function isMetricClass(value: unknown): value is MetricClass {
  return (
    typeof value === "function" &&
    typeof (value as { prototype?: { run?: unknown } }).prototype?.run === "function"
  );
}

/**
 * The metric a command-line flag names by module: `./metrics/refund.ts` (its default export)
 * or `./metrics/refund.ts#refundPolicy` (a named export), relative to `cwd`. The export is a
 * metric object, or a metric class (e.g. from `defineMetric`) made with `threshold` and
 * `model` when given.
 * @example
 * const metric = await loadMetricModule({ spec: "./metrics.ts#Politeness", cwd, threshold: 0.7 });
 */
export async function loadMetricModule(options: {
  spec: string;
  cwd: string;
  /** The flag, for messages, e.g. `"--metric"`. */
  flag: string;
  threshold?: number | undefined;
  model?: ModelSpec | undefined;
}): Promise<BaseMetric<object>> {
  const { spec, cwd, flag } = options;
  const hash = spec.lastIndexOf("#");
  const file = hash > 0 ? spec.slice(0, hash) : spec;
  const exportName = hash > 0 ? spec.slice(hash + 1) : "default";
  const absolute = path.resolve(cwd, file);
  if (!existsSync(absolute)) {
    throw new ConfigError(
      `${flag} "${spec}" is neither a built-in metric (${NAMES_BUILT_BY_NAME.join(", ")}) nor a file: ` +
        `no ${file} in ${cwd}. Give a module that exports a metric, e.g. ${flag} ./metrics.ts#politeness.`,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(
      `${flag} "${spec}": ${file} could not be loaded: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const exported = module[exportName];
  const exportsList = Object.keys(module)
    .filter((name) => isMetricObject(module[name]) || isMetricClass(module[name]))
    .map((name) => (name === "default" ? file : `${file}#${name}`));
  const hint =
    exportsList.length > 0 ? ` Its metrics: ${exportsList.join(", ")}.` : " It exports no metric.";
  if (exported === undefined) {
    throw new ConfigError(
      `${flag} "${spec}": ${file} has no ${exportName === "default" ? "default export" : `export "${exportName}"`}.${hint}`,
    );
  }
  if (isMetricObject(exported)) {
    if (options.threshold !== undefined || options.model !== undefined) {
      throw new ConfigError(
        `${flag} "${spec}" is a metric object, which has its own threshold and judge: set them in ${file}, ` +
          "or export the metric's class to have --threshold and --judge applied.",
      );
    }
    return exported;
  }
  if (isMetricClass(exported)) {
    return new exported({
      ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
      ...(options.model === undefined ? {} : { model: options.model }),
    });
  }
  throw new ConfigError(
    `${flag} "${spec}": the export "${exportName}" of ${file} is no metric (a metric object or class).${hint}`,
  );
}
