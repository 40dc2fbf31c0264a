import { z } from "zod";
import { itemText } from "./answer-text.ts";
import {
  DATA_NOTICE,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  quoteText,
} from "./prompt-text.ts";

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
