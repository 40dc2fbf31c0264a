import { type ZodError, type ZodType, z } from "zod";
import { parseJudgeText } from "./parse-judge-text.ts";

/** What a step's answer must be: its schema, and how a parsed answer is normalised first. */
export interface StepAnswerRules<T> {
  schema: ZodType<T>;
  prepare?: ((value: unknown) => unknown) | undefined;
}

/** The step's answer, or what is wrong with the answer given. */
export type StepAnswer<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The JSON objects an answer held (see `parseJudgeText`). */
export interface AnswerObjects {
  /** The objects at the top level of the answer: only these can be THE answer. */
  values: unknown[];
  /** Objects found inside braces that did not parse: they can only make it ambiguous. */
  enclosed: unknown[];
}

/** How deep JSON written inside strings inside JSON is looked into (`{"note": "{\"…\"}"}`). */
const MAX_STRING_DEPTH = 2;

/** The top-level keys that make an object an answer of the step: its required ones. */
type AnswerKeys = { required: string[]; all: string[] } | null;
const answerKeysCache = new WeakMap<ZodType, AnswerKeys>();

function answerKeysOf(schema: ZodType): AnswerKeys {
  if (answerKeysCache.has(schema)) return answerKeysCache.get(schema) ?? null;
  let keys: AnswerKeys = null;
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, ZodType>;
    const all = Object.keys(shape);
    keys = { all, required: all.filter((key) => !shape[key]?.safeParse(undefined).success) };
  }
  answerKeysCache.set(schema, keys);
  return keys;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One object of the step's shape: what it reads as, and whether it is valid. */
interface Reading<T> {
  result: ReturnType<ZodType<T>["safeParse"]>;
  /** What was validated: the object as `prepare` left it. */
  prepared: unknown;
}

/** A reading's content: the same for the same content, key order, formatting and `null` members aside. */
function contentOf(reading: Reading<unknown>): string {
  return canonicalJson(reading.result.success ? reading.result.data : reading.prepared);
}

/** The value as canonical JSON: keys sorted, `null` and `undefined` members left out. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (!isRecord(inner)) return inner;
    const entries = Object.entries(inner).filter(([, member]) => member != null);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

function describeZodError(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "the answer";
      return `${path}: ${issue.message}`;
    })
    .join("; ");
}

/**
 * The one answer of a step among the JSON objects a judge's answer held. An object is an
 * answer of the step when it has the step's required keys (`{"opinions": …}`); others (an
 * example `{"foo": 1}` in prose) are passed over, and the objects inside an answer are part
 * of it. When the answers found — at the top level, nested in other objects or arrays, in
 * JSON written inside their strings, or in braces that did not parse — are not all the same
 * content (key order, formatting and `null` members aside), the answer is AMBIGUOUS and is
 * refused, never read by its first object. Otherwise the top-level answer is validated.
 */
export function chooseStepAnswer<T>(
  objects: AnswerObjects,
  rules: StepAnswerRules<T>,
): StepAnswer<T> {
  const keys = answerKeysOf(rules.schema);
  const read = (value: unknown): Reading<T> => {
    const prepared = rules.prepare ? rules.prepare(value) : value;
    const result = rules.schema.safeParse(prepared);
    return { result, prepared };
  };
  const isAnswer = (value: unknown): boolean => {
    if (keys === null) return read(value).result.success;
    if (!isRecord(value)) return false;
    return keys.required.length > 0
      ? keys.required.every((key) => key in value)
      : keys.all.some((key) => key in value);
  };

  const answers: Array<Reading<T>> = [];
  const others: Array<Reading<T>> = [];
  // Depth first, without recursion: a deeply nested answer must not overflow the stack.
  const pending: Array<{ value: unknown; topLevel: boolean; depth: number }> = [
    ...objects.enclosed.map((value) => ({ value, topLevel: false, depth: 0 })).reverse(),
    ...objects.values.map((value) => ({ value, topLevel: true, depth: 0 })).reverse(),
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, topLevel, depth } = next;
    if (typeof value === "string") {
      if (depth >= MAX_STRING_DEPTH || !value.includes("{")) continue;
      const parsed = parseJudgeText(value);
      if (!parsed.ok) continue;
      for (const inner of [...parsed.values, ...parsed.enclosed].reverse()) {
        pending.push({ value: inner, topLevel: false, depth: depth + 1 });
      }
    } else if (isAnswer(value)) {
      (topLevel ? answers : others).push(read(value));
    } else if (typeof value === "object" && value !== null) {
      const members = Array.isArray(value) ? value : Object.values(value);
      for (let index = members.length - 1; index >= 0; index--) {
        pending.push({ value: members[index], topLevel: false, depth });
      }
    }
  }

  const found = [...answers, ...others];
  // One answer cannot differ from itself: its content is only written to compare several.
  const differing = found.length > 1 ? new Set(found.map(contentOf)).size : found.length;
  if (differing > 1) {
    const inAll = found.length > differing ? ` (${found.length} JSON objects in all)` : "";
    return {
      ok: false,
      problem: `the answer held ${differing} differing answers of the shape asked for${inAll}, so it is ambiguous which one is meant; answer with exactly one JSON object, without examples or drafts beside it`,
    };
  }
  const chosen = answers[0] ?? read(objects.values[0]);
  if (chosen.result.success) return { ok: true, value: chosen.result.data };
  return { ok: false, problem: describeZodError(chosen.result.error) };
}
