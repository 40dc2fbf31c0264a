/**
 * Vitest integration: `assertTest`, the `toPass` matcher (registered on import) and
 * `VerdictReporter`, which gathers a Vitest run's assertions into one stored run. Import from
 * `verdict/vitest`.
 * @packageDocumentation
 */
import { registerToPass } from "./to-pass.ts";

export type { TestRunOutcome } from "../results/test-run-outcome.ts";
export { assertTest } from "./assert-test.ts";
export type { AssertTestOptions } from "./run-assertion.ts";
export { toPass } from "./to-pass.ts";
export type { VerdictAssertionError } from "./verdict-assertion-error.ts";
export type {
  VerdictCaseOutcome,
  VerdictCaseRecord,
  VerdictErrorInfo,
} from "./verdict-case-record.ts";
export { VerdictReporter } from "./verdict-reporter.ts";
export type { VerdictReporterOptions } from "./verdict-reporter-options.ts";

registerToPass();
