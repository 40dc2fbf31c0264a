import { ConfigError } from "../../errors/config-error.ts";

// What every function or class has of its own, and what `class` adds: never a step.
const BUILT_IN_MEMBERS = new Set([
  "constructor",
  "length",
  "name",
  "prototype",
  "caller",
  "arguments",
]);

/** The spelling-free form of a step name: `generate_statements` and `GenerateStatements` alike. */
function looseName(name: string): string {
  return name.toLowerCase().replace(/[_\-\s]/g, "");
}

/**
 * Every member name of a template and its prototype chain (up to the built-in prototypes): the
 * own keys of an object, the static methods of a class and of the classes it extends, the
 * methods of an instance's class.
 */
function memberNames(template: object): Map<string, unknown> {
  const members = new Map<string, unknown>();
  let current: object | null = template;
  while (current !== null && current !== Object.prototype && current !== Function.prototype) {
    for (const name of Object.getOwnPropertyNames(current)) {
      if (BUILT_IN_MEMBERS.has(name) || members.has(name)) continue;
      members.set(name, (template as Record<string, unknown>)[name]);
    }
    current = Object.getPrototypeOf(current) as object | null;
  }
  return members;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Checks a metric's `evaluationTemplate` when the metric is made, so that a misspelled step
 * never silently falls back to the built-in prompt. Accepted: an object, a class with static
 * methods (extending the built-in template or not), or an instance whose methods sit on its
 * class. Rejected with a `ConfigError` that lists the metric's step names: snake_case or other
 * spellings of a step (`generate_statements`), `generate…` members that are no step of this
 * metric, functions of a plain object that are no step, a step that is not a function, and a
 * template that overrides no step at all. Other members of a class (helpers, static fields)
 * are left alone.
 */
export function checkEvaluationTemplate(options: {
  template: unknown;
  steps: readonly string[];
  /** The metric's class, e.g. `"ToxicityMetric"`. */
  metric: string;
}): void {
  const { template, steps, metric } = options;
  if (template === undefined) return;
  const stepList = steps.map((step) => `"${step}"`).join(", ");
  const fail = (problem: string): never => {
    throw new ConfigError(
      `evaluationTemplate of ${metric} ${problem}. Its steps are ${stepList} (camelCase): ` +
        "pass an object, a class with static methods, or an instance, with any of them as functions returning the prompt.",
    );
  };
  if ((typeof template !== "object" && typeof template !== "function") || template === null) {
    fail(`is ${template === null ? "null" : typeof template}, not a template`);
  }
  const members = memberNames(template as object);
  const plain = typeof template === "object" && isPlainObject(template as object);
  let overridden = 0;
  for (const [name, value] of members) {
    if (steps.includes(name)) {
      if (typeof value !== "function")
        fail(`has "${name}" that is ${typeof value}, not a function`);
      overridden += 1;
      continue;
    }
    const meant = steps.find((step) => looseName(step) === looseName(name));
    if (meant !== undefined)
      fail(`has "${name}", which verdict does not read: rename it "${meant}"`);
    if (looseName(name).startsWith("generate")) fail(`has "${name}", which is no step of it`);
    if (plain && typeof value === "function")
      fail(`has the function "${name}", which is no step of it`);
  }
  if (overridden === 0) fail("overrides none of its steps");
}

/**
 * A metric's built-in prompt functions as own enumerable functions (a class's static methods
 * are neither), so that templates can be listed and overridden step by step; each calls the
 * template's method with the template as `this`.
 */
export function templateSteps<Template extends object, Step extends keyof Template & string>(
  template: Template,
  steps: readonly Step[],
): Pick<Template, Step> {
  return Object.fromEntries(
    steps.map((step) => {
      const method = template[step] as (args: unknown) => string;
      return [step, (args: unknown) => method.call(template, args)];
    }),
  ) as Pick<Template, Step>;
}
