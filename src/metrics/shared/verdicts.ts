import { z } from "zod";

/** One judged item: the verdict, and a reason when the judge gave one. */
export interface Verdict<V extends string = string> {
  verdict: V;
  reason?: string | null | undefined;
}

const TRAILING_PUNCTUATION = /[\s.!?,;:'"`)\]]+$/;
const LEADING_PUNCTUATION = /^[\s'"`([]+/;

/**
 * The one verdict normaliser: trims, lower-cases and strips surrounding punctuation, and
 * reads a leading allowed word ("No, it is off-topic" → "no"). Score and reason both read
 * verdicts through it, so they can never disagree.
 */
export function normalizeVerdict(value: unknown, allowed: readonly string[]): unknown {
  if (typeof value !== "string") return value;
  const cleaned = value
    .trim()
    .toLowerCase()
    .replace(LEADING_PUNCTUATION, "")
    .replace(TRAILING_PUNCTUATION, "");
  if (allowed.includes(cleaned)) return cleaned;
  const leading = /^([a-z]+)\b/.exec(cleaned)?.[1];
  return leading !== undefined && allowed.includes(leading) && cleaned.length > leading.length
    ? leading
    : cleaned;
}

/**
 * Normalises a parsed `{ verdicts: [...] }` answer before validation: verdict spellings, and
 * bare strings (`["yes", "no"]`) read as verdicts without reasons.
 */
export function normalizeVerdictAnswer(value: unknown, allowed: readonly string[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  const verdicts = (value as { verdicts?: unknown }).verdicts;
  if (!Array.isArray(verdicts)) return value;
  return {
    ...value,
    verdicts: verdicts.map((item) => {
      if (typeof item === "string") return { verdict: normalizeVerdict(item, allowed) };
      if (typeof item !== "object" || item === null) return item;
      return {
        ...item,
        verdict: normalizeVerdict((item as { verdict?: unknown }).verdict, allowed),
      };
    }),
  };
}

type VerdictsSchema<V extends string> = z.ZodObject<{
  verdicts: z.ZodArray<
    z.ZodObject<{
      verdict: z.ZodEnum<{ [K in V]: K }>;
      reason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
    }>
  >;
}>;

// Schemas are built once per (verdicts, count, item): a fresh schema per step would miss the
// JSON Schema cache and make zod compile its parser again on every call.
const verdictsSchemas = new Map<string, unknown>();

/**
 * The schema of a verdict step: exactly `count` verdicts from `allowed`, each with an
 * optional reason. The count is part of the schema, so structured output enforces it and a
 * wrong count is re-asked like any other invalid answer.
 */
export function verdictsSchema<V extends string>(options: {
  allowed: readonly [V, ...V[]];
  count: number;
  itemName: string;
}): VerdictsSchema<V> {
  const { allowed, count, itemName } = options;
  const key = `${allowed.join("|")}#${count}#${itemName}`;
  const cached = verdictsSchemas.get(key);
  if (cached) return cached as VerdictsSchema<V>;
  const schema = z.object({
    verdicts: z
      .array(
        z.object({
          verdict: z.enum(allowed),
          reason: z.string().nullish(),
        }),
      )
      .length(count, {
        error: (issue) =>
          `expected exactly ${count} verdicts, one per ${itemName} in the same order, but got ${
            Array.isArray(issue.input) ? issue.input.length : "none"
          }`,
      }),
  });
  verdictsSchemas.set(key, schema);
  return schema as unknown as VerdictsSchema<V>;
}

/** The schema of every reason step. */
export const reasonSchema = z.object({ reason: z.string().min(1) });
