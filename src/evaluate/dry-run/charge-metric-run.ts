import { createHash } from "node:crypto";
import { ESTIMATED_IMAGE_TOKENS, MAX_IMAGE_TOKENS } from "../../judge/estimate-tokens.ts";
import { exactly, type StepEstimate } from "../../metrics/metric-estimate.ts";
import type { EstimateRange, StepChargeEstimate } from "../../results/cost-estimate.ts";
import type { DryRunRecord, DryRunStop } from "./dry-run-requests.ts";

/** The answer of a step the metric's estimate does not name: a short JSON object. */
const UNKNOWN_ANSWER: EstimateRange = { low: 10, expected: 100, high: 1_000 };

function hashOf(...parts: string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${part.length}:`).update(part);
  return hash.digest("hex");
}

/**
 * The charges of one metric's dry run on one case. A run the judge cache answered to the end
 * costs nothing. One that stopped at a request pays that request (its real prompt's tokens;
 * the answer's from the metric's estimate of that step), and the steps the estimate lists
 * after it, each as likely as the estimate says once the stopped step is asked. Each charge
 * has a key, so that a request counted once is never counted again: the stopped request's
 * cache key; a step after it, a key of the prompt the estimate expects it to send (two cases
 * expected to send the same are asked once), else of the step before it (the same metric after
 * the same request on the same judged text asks the same); a step asked once per run, a key of
 * the metric and the step.
 */
export function chargeMetricRun(options: {
  stop: DryRunStop | null;
  record: DryRunRecord;
  /** The metric's estimate of this case, step by step. */
  steps: readonly StepEstimate[];
  /** Identifies the metric and its judge. */
  metricKey: string;
  /** Identifies the fields the metric judges on this case. */
  judgedKey: string;
}): StepChargeEstimate[] {
  const { stop, steps } = options;
  if (stop === null) return [];
  const position = steps.findIndex((step) => step.step === stop.step);
  const stopped = position === -1 ? undefined : steps[position];
  const charges: StepChargeEstimate[] = [
    {
      step: stop.step,
      key: stop.key,
      calls: exactly(1),
      // Images are counted as low-detail ones; a high-detail image may cost up to the most.
      inputTokens: {
        ...exactly(stop.inputTokens),
        high: stop.inputTokens + stop.images * (MAX_IMAGE_TOKENS - ESTIMATED_IMAGE_TOKENS),
      },
      outputTokens: stopped?.outputTokens ?? UNKNOWN_ANSWER,
    },
  ];
  const rest =
    position === -1
      ? steps.filter(
          (step) => step.step !== stop.step && !options.record.answeredSteps.has(step.step),
        )
      : steps.slice(position + 1);
  // Later steps follow from the stopped one: given that it is asked, each is likelier.
  const given = stopped !== undefined && stopped.calls.expected > 0 ? stopped.calls.expected : 1;
  // What a step asks follows from the answers before it: the same expected prompt, or the same
  // request before it, makes the same later requests.
  let chain = hashOf("after", stop.key, options.metricKey, options.judgedKey);
  for (const step of rest) {
    let key: string;
    if (step.oncePerRun) key = hashOf("once", options.metricKey, step.step);
    else if (step.prompt === undefined) key = hashOf(chain, step.step);
    else key = hashOf("prompt", options.metricKey, step.step, step.prompt);
    if (!step.oncePerRun) chain = key;
    charges.push({
      step: step.step,
      key,
      calls: {
        low: step.calls.low,
        expected: Math.min(step.calls.high, step.calls.expected / given),
        high: step.calls.high,
      },
      inputTokens: step.inputTokens,
      outputTokens: step.outputTokens,
    });
  }
  return charges;
}

/** A key for the fields a metric judges on a case (images by their source, never their bytes). */
export function judgedFieldsKey(fields: readonly unknown[]): string {
  return hashOf(
    JSON.stringify(fields, (_key, value: unknown) =>
      value instanceof Uint8Array
        ? `bytes:${hashOf(Buffer.from(value).toString("base64"))}`
        : value,
    ),
  );
}
