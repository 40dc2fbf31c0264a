import { z } from "zod";
import type { ImagePart } from "../../test-case/image.ts";
import type { MetricContext } from "../metric-context.ts";
import { itemText } from "./answer-text.ts";
import {
  DATA_NOTICE,
  exactCountRule,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  quoteText,
} from "./prompt-text.ts";
import { normalizeVerdictAnswer, type Verdict, verdictsSchema } from "./verdicts.ts";

/** Arguments of every `generateTruths` prompt function. */
export interface GenerateTruthsArgs {
  /** The source documents (Faithfulness: `retrievalContext`; Summarization: `[input]`). */
  documents: string[];
  /**
   * The most facts to list per document, most important first (`truthsExtractionLimit`);
   * `null` lists them all.
   */
  extractionLimit: number | null;
  /** Whether the documents hold images. */
  multimodal: boolean;
}

/** Arguments of every `generateClaims` prompt function. */
export interface GenerateClaimsArgs {
  /** The judged output (Faithfulness: the answer; Summarization: the summary). */
  actualOutput: string;
  /** Whether the output holds images. */
  multimodal: boolean;
}

/** Schema of the truth step: `{ "truths": string[] }`. */
export const truthsSchema = z.object({ truths: z.array(itemText) });

/** Schema of the claim step: `{ "claims": string[] }`. */
export const claimsSchema = z.object({ claims: z.array(itemText) });

/** The `truthsExtractionLimit` option of Faithfulness and Summarization, as a checked spec. */
export const TRUTHS_EXTRACTION_LIMIT = {
  schema: z.number().int().min(0).nullable().default(null),
  expects: "a whole number of 0 or more, or null for no limit",
};

function limitRule(limit: number | null): string {
  if (limit === null) return "List every fact each document states.";
  if (limit === 1) return "From each document, list only the single most important fact it states.";
  return `From each document, list at most the ${limit} most important facts it states, the most important first.`;
}

/**
 * The truth-extraction prompt shared by Faithfulness (over `retrievalContext`) and
 * Summarization (over the original text, as one document). It is byte-identical for the same
 * documents and limit, so a Faithfulness over `[text]` and a Summarization of `text` ask once.
 */
export function generateTruths(args: GenerateTruthsArgs): string {
  return joinSections(
    "You list the facts stated by one or more source documents, so that claims made elsewhere can be checked against them later.",
    [
      "A fact is something a document presents as true: an event, a number, a date, a property, a relation between things.",
      "Take each document at its word: list what it states even when you believe it is wrong, and add nothing from your own knowledge.",
      'Write each fact as one self-contained sentence that can be understood without the document (name who or what it is about instead of "he" or "it"), keeping the document\'s own words where possible.',
      `${limitRule(args.extractionLimit)} If the documents state no fact, return an empty list.`,
    ].join("\n"),
    [
      "Example",
      'Documents: ["The Rhine rises in the Swiss Alps and flows about 1,230 km to the North Sea. Basel and Cologne lie on it."]',
      'Answer: {"truths": ["The Rhine rises in the Swiss Alps.", "The Rhine flows about 1,230 km.", "The Rhine flows into the North Sea.", "Basel and Cologne lie on the Rhine."]}',
    ].join("\n"),
    args.multimodal && MULTIMODAL_RULES,
    DATA_NOTICE,
    quoteList("documents", args.documents),
    'Answer with only a JSON object: {"truths": ["…", …]}',
  );
}

/**
 * The claim-extraction prompt shared by Faithfulness and Summarization: byte-identical for the
 * same output, so when both run on a test case the judge is asked once.
 */
export function generateClaims(args: GenerateClaimsArgs): string {
  return joinSections(
    "You list the claims made by a text written by an AI system, so that each one can be checked against source facts later.",
    [
      "A claim is something the text presents as fact. Take the text at its word: list a claim whether or not it is true, and add nothing from your own knowledge.",
      'Write each claim as one self-contained sentence with the context it was made in: who or what it is about, and its conditions and hedges ("may", "about", "in 2020"). Do not pick details out of their context.',
      "Leave out questions, greetings, offers of help and pure opinions, which state no fact. Keep the claims in the order they appear. If the text makes no claim, return an empty list.",
    ].join("\n"),
    [
      "Example",
      'Text: "Sure! The Rhine, which rises in the Alps, may be the busiest river in Europe. It ends in the North Sea near Rotterdam. I hope this helps!"',
      'Answer: {"claims": ["The Rhine rises in the Alps.", "The Rhine may be the busiest river in Europe.", "The Rhine ends in the North Sea near Rotterdam."]}',
    ].join("\n"),
    args.multimodal && MULTIMODAL_RULES,
    DATA_NOTICE,
    quoteText("text", args.actualOutput),
    'Answer with only a JSON object: {"claims": ["…", …]}',
  );
}

/** Arguments of every claim-verdict prompt (Faithfulness, Summarization's alignment step). */
export interface GenerateClaimVerdictsArgs {
  /** The claims to judge, in order. */
  claims: string[];
  /** The facts taken from the source (the `generateTruths` step's answer). */
  truths: string[];
  multimodal: boolean;
}

/** The verdicts a claim can get: backed, contradicted, or neither. */
export const CLAIM_VERDICTS = ["yes", "no", "idk"] as const;

/**
 * The claim-verdict prompt shared by Faithfulness (`generateVerdicts`) and Summarization
 * (`generateAlignmentVerdicts`), which ask the same question of the same claims and facts:
 * byte-identical for the same claims and truths, so running both asks once. Each metric
 * counts the verdicts its own way (Faithfulness counts `idk` as faithful, Summarization's
 * alignment does not).
 */
export function generateClaimVerdicts(args: GenerateClaimVerdictsArgs): string {
  const count = args.claims.length;
  return joinSections(
    "You check each claim against a list of facts taken from the source the claims should be faithful to.",
    [
      'For each claim answer "yes", "no" or "idk":',
      '- "yes": the facts back the claim, or agree with it;',
      '- "no": the facts directly contradict the claim: both cannot be true at once;',
      '- "idk": the facts neither back nor contradict it: they do not mention it, or the claim is wrong by what you know but nothing in the facts contradicts it.',
      'Judge only against the facts given, never against your own knowledge. Hedged or speculative wording ("may", "possibly", "might have helped") is no contradiction.',
      'Give a reason for every "no" and "idk" (for "no", correct the claim from the facts); for "yes" the reason is null.',
    ].join("\n"),
    [
      "Example",
      'Facts: ["The museum opened in 1994.", "The museum is in Porto.", "The museum holds about 3,000 paintings."]',
      'Claims: ["The museum in Porto opened in 1994, which may have helped tourism.", "The museum opened in 1996.", "The museum café opens on Sundays.", "Porto is the capital of Portugal."]',
      'Answer: {"verdicts": [{"verdict": "yes", "reason": null}, {"verdict": "no", "reason": "The facts say the museum opened in 1994, not 1996."}, {"verdict": "idk", "reason": "The facts do not mention a café."}, {"verdict": "idk", "reason": "Wrong, but the facts say nothing about the capital, so they do not contradict it."}]}',
    ].join("\n"),
    exactCountRule(count, "claim"),
    args.multimodal && MULTIMODAL_RULES,
    DATA_NOTICE,
    quoteList("facts", args.truths),
    quoteList("claims", args.claims),
    'Answer with only a JSON object: {"verdicts": [{"verdict": "yes", "no" or "idk", "reason": "…" or null}, …]}',
  );
}

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
