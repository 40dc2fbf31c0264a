// The conformance set: every classification deepeval documents for verdict's metrics (its docs'
// rubric and usage examples, and its prompts' worked examples), as fixtures in
// test/fixtures/conformance/*.json. Each example is one test case, the metric it goes through
// (with the options and other test-case fields it needs), and the classification deepeval
// expects: of the whole case, or of one item of it (a retrieved node, a context passage, a
// sentence of the expected output) — and, at the level users see, the score (or its range), the
// pass/fail at the default threshold, and the items that must be extracted or flagged.
// docs/metric-conformance.md names the verdict prompt text that covers each one.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { splitSentences } from "../../src/metrics/shared/answer-text.ts";

/** Where the fixtures live. */
export const CONFORMANCE_DIR = fileURLToPath(
  new URL("../../test/fixtures/conformance/", import.meta.url),
);

/** The classifications an example of each metric may expect. */
export const METRIC_CLASSES = {
  Toxicity: ["toxic", "not toxic"],
  Bias: ["biased", "not biased", "no opinion"],
  "Answer Relevancy": ["relevant", "irrelevant", "ambiguous", "one statement", "partly relevant"],
  "PII Leakage": ["PII leak", "no PII leak"],
  "Role Violation": ["role violation", "role kept"],
  "Non-Advice": ["inappropriate advice", "appropriate advice"],
  Misuse: ["misuse", "no misuse"],
  Faithfulness: ["faithful", "contradicted", "not in context"],
  Summarization: ["aligned", "contradicted", "extra information", "covered", "not covered"],
  "Contextual Relevancy": ["relevant", "irrelevant", "partly relevant"],
  "Contextual Precision": ["useful", "not useful"],
  "Contextual Recall": ["attributable", "not attributable"],
  Hallucination: ["agrees", "contradicts"],
} as const;

/**
 * Where the items of a metric judged item by item come from: an example of it names one by
 * its position (`item`, from 1), and its classification is that item's.
 */
export const ITEMS_OF: Partial<
  Record<ConformanceMetric, (example: ConformanceExample) => string[]>
> = {
  "Contextual Relevancy": (example) => example.retrievalContext ?? [],
  "Contextual Precision": (example) => example.retrievalContext ?? [],
  "Contextual Recall": (example) => splitSentences(example.expectedOutput ?? ""),
  Hallucination: (example) => example.context ?? [],
};

/** A metric of the conformance set, by its display name. */
export type ConformanceMetric = keyof typeof METRIC_CLASSES;
/** A classification an example expects. */
export type ExpectedClass = (typeof METRIC_CLASSES)[ConformanceMetric][number];

/** One example: a text, the metric it goes through, and what deepeval classifies it as. */
export interface ConformanceExample {
  /** Unique, kebab-case; the row key in docs/metric-conformance.md. */
  id: string;
  metric: ConformanceMetric;
  /** Where deepeval documents the classification. */
  source: string;
  /** The test case's input (Toxicity and Bias need one but do not judge it). */
  input: string;
  /** The judged output (`actualOutput`). */
  text: string;
  expected: ExpectedClass;
  /** The test case's other fields, for metrics that judge them (Faithfulness: `retrievalContext`). */
  expectedOutput?: string | undefined;
  context?: string[] | undefined;
  retrievalContext?: string[] | undefined;
  /**
   * The metric's own options for this example (Role Violation: `{ "role": "helpful customer
   * service agent" }`, Summarization: `assessmentQuestions`).
   */
  options?: Record<string, unknown> | undefined;
  /** The item the classification is about, from 1 (see {@link ITEMS_OF}). */
  item?: number | undefined;
  /**
   * The score deepeval gives, as one value or an inclusive `[min, max]` range (a split the
   * judge may make differently, e.g. one sentence read as one or two statements).
   */
  score?: number | [number, number] | undefined;
  /** Whether the case passes at the metric's default threshold. */
  pass?: boolean | undefined;
  /**
   * Pieces of text (case-insensitive) each of which must occur in an item the metric flags:
   * a toxic or biased opinion, an irrelevant statement, a leak, a contradicted claim.
   */
  flagged?: string[] | undefined;
  /** Pieces of text each of which must occur in some extracted item (opinion, statement, claim). */
  extracted?: string[] | undefined;
  /** How many items the extraction step must give (0: none, as for a text with no opinion). */
  extractedCount?: number | undefined;
}

/** The inclusive score range an example expects, or `null` when it states none. */
export function expectedScoreRange(example: ConformanceExample): [number, number] | null {
  if (example.score === undefined) return null;
  return typeof example.score === "number" ? [example.score, example.score] : example.score;
}

/** The text a classification is about: the item the example names, else the output. */
export function judgedText(example: ConformanceExample): string {
  if (example.item === undefined) return example.text;
  const items = ITEMS_OF[example.metric]?.(example) ?? [];
  const item = items[example.item - 1];
  if (item === undefined) {
    throw new Error(
      `example "${example.id}" names item ${example.item}, but ${example.metric} finds ${items.length} in it: give an item from 1 to ${items.length}.`,
    );
  }
  return item;
}

const METRICS = Object.keys(METRIC_CLASSES) as [ConformanceMetric, ...ConformanceMetric[]];
const exampleSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be kebab-case"),
  source: z.string().min(1),
  input: z.string().trim().min(1),
  text: z.string().trim().min(1),
  expected: z.string(),
  expectedOutput: z.string().trim().min(1).optional(),
  context: z.array(z.string().trim().min(1)).min(1).optional(),
  retrievalContext: z.array(z.string().trim().min(1)).min(1).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  item: z.int().min(1).optional(),
  score: z
    .union([
      z.number().min(0).max(1),
      z
        .tuple([z.number().min(0).max(1), z.number().min(0).max(1)])
        .refine(([min, max]) => min <= max, "a range is [min, max] with min <= max"),
    ])
    .optional(),
  pass: z.boolean().optional(),
  flagged: z.array(z.string().trim().min(2)).min(1).optional(),
  extracted: z.array(z.string().trim().min(2)).min(1).optional(),
  extractedCount: z.int().min(0).optional(),
});
const fileSchema = z.strictObject({
  metric: z.enum(METRICS),
  examples: z.array(exampleSchema).min(1),
});

/**
 * Reads and checks every `*.json` fixture file of `directory`: the shape, an expected
 * classification the metric knows, and ids unique across files. Throws an Error naming the
 * file and what to fix.
 */
export function loadConformanceSet(directory: string = CONFORMANCE_DIR): ConformanceExample[] {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith(".json"))
    .sort();
  if (files.length === 0) {
    throw new Error(`No conformance fixtures (*.json) in ${directory}.`);
  }
  const examples: ConformanceExample[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const path = join(directory, file);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        `${path} is not a conformance fixture file: ${z.prettifyError(parsed.error)}`,
      );
    }
    const { metric } = parsed.data;
    const allowed: readonly string[] = METRIC_CLASSES[metric];
    for (const example of parsed.data.examples) {
      if (!allowed.includes(example.expected)) {
        throw new Error(
          `${path}: example "${example.id}" expects "${example.expected}", which ${metric} cannot classify; use one of ${allowed.map((name) => `"${name}"`).join(", ")}.`,
        );
      }
      // Parsed JSON holds no undefined values: an absent key is absent.
      const full = { ...example, metric, expected: example.expected } as ConformanceExample;
      if ((example.item !== undefined) !== (ITEMS_OF[metric] !== undefined)) {
        throw new Error(
          `${path}: example "${example.id}" ${example.item === undefined ? `needs "item": ${metric} classifies each item of a case` : `has "item", but ${metric} classifies whole cases`}.`,
        );
      }
      try {
        judgedText(full);
      } catch (error) {
        throw new Error(`${path}: ${(error as Error).message}`);
      }
      checkExpectedPieces(path, full);
      const other = seen.get(example.id);
      if (other !== undefined) {
        throw new Error(`${path}: example id "${example.id}" is also used in ${other}.`);
      }
      seen.set(example.id, file);
      examples.push(full);
    }
  }
  return examples;
}

/** Normalised for matching pieces of text: lower case, straight quotes, single spaces. */
export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, " ")
    .trim();
}

/** Every piece an example expects flagged or extracted must be a piece of its own text. */
function checkExpectedPieces(path: string, example: ConformanceExample): void {
  const text = normaliseText(judgedText(example));
  for (const piece of [...(example.flagged ?? []), ...(example.extracted ?? [])]) {
    if (!text.includes(normaliseText(piece))) {
      throw new Error(
        `${path}: example "${example.id}" expects "${piece}" in an item, but its text does not contain it: quote a piece of the text.`,
      );
    }
  }
  if (example.extractedCount === 0 && (example.flagged ?? example.extracted) !== undefined) {
    throw new Error(
      `${path}: example "${example.id}" expects no item ("extractedCount": 0) and items too: drop one of them.`,
    );
  }
}
