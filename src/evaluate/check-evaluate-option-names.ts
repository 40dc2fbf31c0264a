import { ConfigError } from "../errors/config-error.ts";
import { describeUnknownName } from "../errors/unknown-name.ts";
import { RUN_OPTION_NAMES } from "./run-options.ts";

/** What evaluate() takes besides the run options: its cases, metrics, dry run and component run. */
const OWN_NAMES = ["testCases", "metrics", "dryRun", "goldens", "observedCallback"] as const;

/**
 * Refuses an option evaluate() does not know, before anything runs: `identifer` would otherwise
 * be ignored and the run stored without its name. The message names the option most likely
 * meant (`identifer` → "did you mean `identifier`?", `ignore_errors` → "verdict spells it
 * `ignoreErrors`").
 */
export function checkEvaluateOptionNames(options: object): void {
  const known: readonly string[] = [...OWN_NAMES, ...RUN_OPTION_NAMES];
  const unknown = Object.keys(options).filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const problems = unknown.map((name) => describeUnknownName(name, known));
  throw new ConfigError(
    `evaluate() was given ${unknown.length === 1 ? "an option it does not know" : `${unknown.length} options it does not know`}: ${problems.join("; ")}. ` +
      "Its options are listed in docs/evaluate.md.",
  );
}
