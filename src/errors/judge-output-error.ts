import { redactSecretText } from "../secrets/redact-secrets.ts";
import { EvalError } from "./eval-error.ts";

/** Options of {@link JudgeOutputError}. */
export interface JudgeOutputErrorOptions {
  /** Metric whose step failed, e.g. `"Toxicity"`. */
  metric: string;
  /** The step, e.g. `"generateVerdicts"`. */
  step: string;
  /** The judge's last answer, verbatim (secrets in it are masked). */
  rawText: string;
  /** What was wrong with it. */
  problem: string;
  cause?: unknown;
}

/**
 * The judge answered, but even after one re-ask its answer could not be read as the JSON
 * the step asks for. Carries the raw text (secrets masked) so it can be inspected.
 */
export class JudgeOutputError extends EvalError {
  readonly metric: string;
  readonly step: string;
  readonly rawText: string;

  constructor(options: JudgeOutputErrorOptions) {
    const preview =
      options.rawText.length > 500 ? `${options.rawText.slice(0, 500)}…` : options.rawText;
    super(
      "JUDGE_OUTPUT",
      `Metric "${options.metric}", step "${options.step}": the judge's answer was not valid ` +
        `(${options.problem}), even after one re-ask. Use a judge model that follows JSON ` +
        `instructions (one with structured output), or pass a custom evaluationTemplate. ` +
        `Raw answer: ${JSON.stringify(preview)}`,
      { cause: options.cause },
    );
    this.metric = options.metric;
    this.step = options.step;
    this.rawText = redactSecretText(options.rawText);
  }
}
