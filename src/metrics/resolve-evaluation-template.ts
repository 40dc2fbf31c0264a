import { ConfigError } from "../errors/config-error.ts";

/**
 * A metric's prompt functions for one run: its built-in ones, each replaced by the function
 * of the same step in `evaluationTemplate` (checked when the metric was made). An override is
 * called with the template as `this`, and must return the prompt as a non-empty string, or
 * the step fails with a `ConfigError`.
 */
export function resolveEvaluationTemplate<Template extends object>(options: {
  /** The metric's display name, for the message. */
  metric: string;
  /** The built-in prompt functions. */
  defaults: Template;
  /** The metric's `evaluationTemplate` option. */
  custom: Partial<Template> | undefined;
}): Template {
  const { metric, defaults } = options;
  const custom = options.custom as Record<string, unknown> | undefined;
  if (!custom) return defaults;
  const resolved: Record<string, unknown> = {};
  for (const [step, builtIn] of Object.entries(defaults)) {
    const override = custom[step];
    resolved[step] =
      typeof override === "function"
        ? (args: unknown) => {
            const prompt = override.call(custom, args);
            if (typeof prompt !== "string" || prompt.trim() === "") {
              throw new ConfigError(
                `evaluationTemplate.${step} of metric "${metric}" must return the prompt as a non-empty string; it returned ${typeof prompt}.`,
              );
            }
            return prompt;
          }
        : builtIn;
  }
  return resolved as Template;
}
