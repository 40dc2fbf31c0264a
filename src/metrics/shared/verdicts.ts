import { z } from "zod";
import { preferInFakeJudge } from "../../judge/fake-judge-preference.ts";
import type { ImagePart } from "../../test-case/image.ts";
import { reasonText } from "./answer-text.ts";

/** One judged item: the verdict, and a reason when the judge gave one. */
export interface Verdict<V extends string = string> {
  verdict: V;
  reason?: string | null | undefined;
}

// Whitespace, punctuation and invisible format characters around the word: `"Yes."`,
// `**no**`, `` `idk` ``. Nothing inside the word is touched.
const SURROUNDING = /^[\s\p{P}\p{Cf}`^~]+|[\s\p{P}\p{Cf}`^~]+$/gu;

/**
 * The one verdict normaliser: trims whitespace, lower-cases and strips surrounding
 * punctuation, and nothing more. The result must then be exactly one allowed word: `"Yes."`
 * and `" NO "` are read, while `"yes/no"`, `"yes or no"`, `"yes-ish"`, `"no idea"`,
 * `"No, yes."` and `"maybe"` are left as they are for validation to reject (the step is
 * then asked again), never read by their first word. Score and reason both read verdicts
 * through it, so they can never disagree.
 */
export function normalizeVerdict(value: unknown, allowed: readonly string[]): unknown {
  if (typeof value !== "string") return value;
  const cleaned = value.toLowerCase().replace(SURROUNDING, "");
  return allowed.includes(cleaned) ? cleaned : value;
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
  /**
   * The verdict that finds nothing wrong, when it is not "no" (e.g. "yes": relevant,
   * attributable): what the built-in fake judge answers. Not part of the JSON Schema.
   */
  clean?: V;
}): VerdictsSchema<V> {
  const { allowed, count, itemName, clean } = options;
  const key = `${allowed.join("|")}#${count}#${itemName}#${clean ?? ""}`;
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
  if (clean !== undefined) preferInFakeJudge(schema, [clean]);
  verdictsSchemas.set(key, schema);
  return schema as unknown as VerdictsSchema<V>;
}

/** The schema of every reason step: a real sentence (see `isRealSentence`). */
export const reasonSchema = z.object({ reason: reasonText });

/**
 * Why an item got its verdict: the judge's reason, else the item itself, quoted (and its
 * verdict after it, `"…" (idk)`, with `showVerdict`, where more than one verdict counts).
 */
export function reasonOrItem(
  verdict: Verdict,
  item: string | undefined,
  showVerdict = false,
): string {
  const quoted = `"${item ?? ""}"`;
  return verdict.reason?.trim() || (showVerdict ? `${quoted} (${verdict.verdict})` : quoted);
}

/** The reason plan that asks the judge: the `generateReason` step with `prompt` and `images`. */
export function judgeReason(prompt: string, images: ImagePart[]) {
  return { judge: { step: "generateReason", prompt, images, schema: reasonSchema } };
}
