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
