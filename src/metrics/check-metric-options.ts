import { type ZodType, z } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import { describeUnknownName as describeUnknown } from "../errors/unknown-name.ts";
import { describeValue } from "../test-case/llm-test-case.ts";

/** One option a metric takes: what it must be, and how to say so. */
export interface MetricOptionSpec {
  schema: ZodType;
  /** What the value must be, for messages: `"a number from 0 to 1, or null for score-only"`. */
  expects?: string;
}

/** The options a metric takes, by name: a spec, or just a zod schema. */
export type MetricOptionSpecs = Readonly<Record<string, MetricOptionSpec | ZodType>>;

const isModelSpec = (value: unknown) =>
  (typeof value === "string" && value.trim() !== "") ||
  (typeof value === "object" && value !== null);

/** The options every metric takes (see `BaseMetricOptions`). */
export const BASE_METRIC_OPTIONS: Readonly<Record<string, MetricOptionSpec>> = {
  threshold: {
    schema: z.number().min(0).max(1).nullable(),
    expects: "a number from 0 to 1, or null for score-only",
  },
  model: {
    schema: z.custom(isModelSpec),
    expects: 'a model string ("gpt-4.1"), an AI SDK language model or a JudgeModel',
  },
  includeReason: { schema: z.boolean(), expects: "true or false" },
  strictMode: { schema: z.boolean(), expects: "true or false" },
  asyncMode: { schema: z.boolean(), expects: "true or false" },
  verboseMode: { schema: z.boolean(), expects: "true or false" },
  evaluationTemplate: {
    schema: z.custom(
      (value) => (typeof value === "object" && value !== null) || typeof value === "function",
    ),
    expects: "an object, a class with static methods, or an instance",
  },
};

function specOf(spec: MetricOptionSpec | ZodType): MetricOptionSpec {
  return "schema" in spec && !("safeParse" in spec) ? spec : { schema: spec as ZodType };
}

/** A short list as written (`["actual_output"]`), so a wrong entry shows; else what it is. */
function describeList(value: unknown): string {
  if (!Array.isArray(value)) return describeValue(value);
  try {
    const json = JSON.stringify(value);
    return json !== undefined && json.length <= 80 ? json : describeValue(value);
  } catch {
    return describeValue(value);
  }
}

function describeWrongValue(
  name: string,
  spec: MetricOptionSpec,
  value: unknown,
  error: z.ZodError,
) {
  const shown =
    typeof value === "string"
      ? `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`
      : typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : describeList(value);
  if (spec.expects !== undefined) return `\`${name}\` must be ${spec.expects}; got ${shown}`;
  const issue = error.issues[0];
  const path = issue && issue.path.length > 0 ? ` (at ${issue.path.join(".")})` : "";
  return `\`${name}\` is not valid${path}: ${issue?.message ?? "invalid value"}; got ${shown}`;
}

/**
 * Checks the options a metric is made with, before any judge call: an option the metric does
 * not take is a `ConfigError` naming it and the option it most likely meant (`treshold` →
 * `threshold`, `strict_mode` → `strictMode`), and so is a value of the wrong type
 * (`threshold: "0.7"`). Returns the metric's own options (those beyond the base ones) parsed,
 * with their defaults filled in.
 */
export function checkMetricOptions(options: {
  /** The metric's class name, e.g. `"ToxicityMetric"`. */
  metric: string;
  /** What the user passed. */
  given: object | undefined;
  /** The metric's own options, beyond {@link BASE_METRIC_OPTIONS}. */
  own: MetricOptionSpecs;
}): Record<string, unknown> {
  const { metric, given } = options;
  if (
    given !== undefined &&
    (typeof given !== "object" || given === null || Array.isArray(given))
  ) {
    throw new ConfigError(
      `${metric} takes an options object, e.g. new ${metric}({ threshold: 0.5 }); got ${describeValue(given)}.`,
    );
  }
  const specs: Record<string, MetricOptionSpec> = { ...BASE_METRIC_OPTIONS };
  for (const [name, spec] of Object.entries(options.own)) specs[name] = specOf(spec);
  const known = Object.keys(specs);
  const values = (given ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const own: Record<string, unknown> = {};
  for (const name of Object.keys(values)) {
    if (!(name in specs)) problems.push(describeUnknown(name, known));
  }
  const unknownCount = problems.length;
  for (const [name, spec] of Object.entries(specs)) {
    const value = values[name];
    const isOwn = name in options.own;
    if (value === undefined && !isOwn) continue;
    const parsed = spec.schema.safeParse(value);
    if (!parsed.success) {
      problems.push(describeWrongValue(name, spec, value, parsed.error));
    } else if (isOwn) {
      own[name] = parsed.data;
    }
  }
  if (problems.length > 0) {
    // Only a wrong value (or a required option left out): nothing unknown was given.
    const lead =
      unknownCount === 0
        ? problems.length === 1
          ? "has a wrong option"
          : `has ${problems.length} wrong options`
        : problems.length === 1
          ? "was given an option it cannot use"
          : `was given ${problems.length} options it cannot use`;
    const said = problems.join("; ");
    throw new ConfigError(
      `${metric} ${lead}: ${said}${said.endsWith("?") ? "" : "."} ` +
        `Its options are ${known.map((name) => `\`${name}\``).join(", ")}.`,
    );
  }
  return own;
}
