import type { ImagePart } from "../../test-case/image.ts";
import type { MetricContext } from "../base-metric.ts";
import { CLAIM_VERDICTS } from "./claim-verdicts.ts";
import { claimsSchema, truthsSchema } from "./truths-and-claims.ts";
import { normalizeVerdictAnswer, type Verdict, verdictsSchema } from "./verdicts.ts";

/** A claim's verdict against the source's facts: backed ("yes"), contradicted ("no"), neither ("idk"). */
export type ClaimVerdict = Verdict<(typeof CLAIM_VERDICTS)[number]>;

/** What {@link checkClaims} found: the source's facts, the output's claims, a verdict per claim. */
export interface ClaimCheck {
  truths: string[];
  claims: string[];
  /** One per claim, in order; empty when there is no claim (the verdict step is skipped). */
  verdicts: ClaimVerdict[];
}

/** One extraction step of {@link checkClaims}: its template function's name, prompt and images. */
export interface ExtractionStep {
  step: string;
  prompt: () => string;
  images: ImagePart[];
}

/**
 * Runs `tasks` at once, or one after another in their order when `asyncMode` is false (the
 * metric option that makes every judge call of a metric wait for the one before). At once,
 * a failure is thrown only when every task has settled (the first failure in task order), so
 * no judge call of a failed metric is still running, unaccounted for, when it reports.
 */
export async function runSteps<T extends readonly unknown[]>(
  asyncMode: boolean,
  tasks: { readonly [K in keyof T]: () => Promise<T[K]> },
): Promise<T> {
  const results: unknown[] = [];
  if (!asyncMode) {
    for (const task of tasks) results.push(await task());
    return results as unknown as T;
  }
  const settled = await Promise.allSettled(tasks.map((task) => task()));
  for (const outcome of settled) {
    if (outcome.status === "rejected") throw outcome.reason;
    results.push(outcome.value);
  }
  return results as unknown as T;
}

/**
 * The claim check Faithfulness and Summarization's alignment share: the source's facts and the
 * output's claims (at once, as deepeval gathers them), then one yes/no/idk verdict per claim
 * against the facts, skipped when there is no claim. A wrong verdict count is re-asked once,
 * then a `JudgeOutputError`. `truths: null` asks for no facts (an extraction limit of 0).
 */
export async function checkClaims(options: {
  ask: MetricContext<unknown>["ask"];
  asyncMode: boolean;
  truths: ExtractionStep | null;
  claims: ExtractionStep;
  verdicts: { step: string; prompt: (claims: string[], truths: string[]) => string };
}): Promise<ClaimCheck> {
  const { ask, truths: truthStep, claims: claimStep } = options;
  const [truths, claims] = await runSteps<[string[], string[]]>(options.asyncMode, [
    async () =>
      truthStep === null
        ? []
        : (
            await ask({
              step: truthStep.step,
              prompt: truthStep.prompt(),
              images: truthStep.images,
              schema: truthsSchema,
            })
          ).truths,
    async () =>
      (
        await ask({
          step: claimStep.step,
          prompt: claimStep.prompt(),
          images: claimStep.images,
          schema: claimsSchema,
        })
      ).claims,
  ]);
  if (claims.length === 0) return { truths, claims, verdicts: [] };
  const { verdicts } = await ask({
    step: options.verdicts.step,
    // Claims and facts are text: the images were read when they were extracted.
    prompt: options.verdicts.prompt(claims, truths),
    images: [],
    schema: verdictsSchema({ allowed: CLAIM_VERDICTS, count: claims.length, itemName: "claim" }),
    prepare: (value) => normalizeVerdictAnswer(value, CLAIM_VERDICTS),
  });
  return { truths, claims, verdicts };
}
