type Schema = Record<string, unknown>;

/** Where a value sits: `$.verdicts[0].verdict` seeds its choices, `verdicts 1` names its text. */
interface Place {
  seed: string;
  path: string;
  label: string;
  /** Enum members to pick, in order of preference, before any hashed choice. */
  preferred: readonly unknown[];
}

/** Options of {@link defaultAnswer}. */
export interface DefaultAnswerOptions {
  /**
   * Enum members to answer whenever an enum offers one of them, first match wins: `["idk",
   * "no"]` makes every verdict the first of those the step allows. Other enums stay hashed.
   * @default [] (every enum member is picked by the hash)
   */
  preferredEnumValues?: readonly unknown[] | undefined;
}

const WORDS = ["clear", "relevant", "accurate", "partial", "concise", "vague", "grounded", "off"];
// Arrays longer than this are never built, whatever minItems asks: a fake must not hang.
const MAX_ITEMS = 1000;
// Keywords whose answer this simple walk would get wrong: better a clear error than a value
// the client rejects.
const UNSUPPORTED = ["$ref", "allOf", "not", "prefixItems", "pattern", "format", "multipleOf"];

/**
 * The fake server's answer when nothing is scripted: a deterministic value for the JSON schemas
 * judges ask for (verdict's step schemas, and plain zod objects, arrays, strings, enums,
 * numbers, booleans and nullable values). Every property is filled; arrays get `minItems`
 * items (1 when unset); enum members, union branches, booleans and numbers are picked by a hash
 * of the seed and the path, so the same prompt always gets the same answer and different
 * prompts a realistic mix of verdicts. Strings are short text from the property name
 * ("grounded opinions 1"), within `minLength`/`maxLength`.
 * @throws on `$ref`, `allOf`, `not`, tuples, `pattern`, `format` and `multipleOf`, which it
 * cannot satisfy.
 */
export function defaultAnswer(
  schema: unknown,
  seed: string,
  options: DefaultAnswerOptions = {},
): unknown {
  const preferred = options.preferredEnumValues ?? [];
  return answerNode(schema, { seed, path: "$", label: "value", preferred });
}

/** FNV-1a: a small stable hash, so the same request always gets the same answer. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function choose(place: Place, count: number, salt = ""): number {
  return hashText(`${place.seed}\u0000${place.path}${salt}`) % count;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNullSchema(branch: unknown): boolean {
  return isSchema(branch) && (branch.type === "null" || branch.const === null);
}

/** Picks one of `options`, preferring non-null ones: a judge that answers null says little. */
function chooseNonNull<T>(
  place: Place,
  options: T[],
  salt: string,
  isNull: (option: T) => boolean,
) {
  const values = options.filter((option) => !isNull(option));
  const pool = values.length > 0 ? values : options;
  return pool[choose(place, pool.length, salt)];
}

function answerNode(node: unknown, place: Place): unknown {
  if (!isSchema(node)) return `${WORDS[choose(place, WORDS.length)]} ${place.label}`;
  const unsupported = Object.keys(node).find((keyword) => UNSUPPORTED.includes(keyword));
  if (unsupported !== undefined) {
    throw new Error(
      `its default answer cannot satisfy "${unsupported}" (at ${place.path}): script this answer with reply.json() or a responder`,
    );
  }
  if ("const" in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) {
    const members = node.enum;
    const preferred = place.preferred.find((value) => members.includes(value));
    return preferred !== undefined ? preferred : members[choose(place, members.length)];
  }
  const branches = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = node;
    const branch = chooseNonNull(place, branches, "|anyOf", isNullSchema);
    return answerNode(isSchema(branch) ? { ...rest, ...branch } : branch, place);
  }
  const type = Array.isArray(node.type)
    ? chooseNonNull(place, node.type, "|type", (type) => type === "null")
    : (node.type ?? (isSchema(node.properties) ? "object" : "items" in node ? "array" : "string"));
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return choose(place, 2) === 0;
    case "integer":
    case "number":
      return answerNumber(node, place, type === "integer");
    case "object":
      return answerObject(node, place);
    case "array":
      return answerArray(node, place);
    default:
      return answerString(node, place);
  }
}

function answerObject(node: Schema, place: Place): Record<string, unknown> {
  const properties = isSchema(node.properties) ? node.properties : {};
  return Object.fromEntries(
    Object.entries(properties).map(([key, child]) => [
      key,
      answerNode(child, { ...place, path: `${place.path}.${key}`, label: key }),
    ]),
  );
}

function answerArray(node: Schema, place: Place): unknown[] {
  const minItems = typeof node.minItems === "number" ? node.minItems : 1;
  const maxItems = typeof node.maxItems === "number" ? node.maxItems : MAX_ITEMS;
  const length = Math.max(0, Math.min(minItems, maxItems, MAX_ITEMS));
  return Array.from({ length }, (_, index) =>
    answerNode(node.items, {
      ...place,
      path: `${place.path}[${index}]`,
      label: `${place.label} ${index + 1}`,
    }),
  );
}

function answerString(node: Schema, place: Place): string {
  const minLength = typeof node.minLength === "number" ? node.minLength : 0;
  const maxLength = typeof node.maxLength === "number" ? node.maxLength : Number.POSITIVE_INFINITY;
  let text = `${WORDS[choose(place, WORDS.length)]} ${place.label}`;
  while (text.length < minLength) text += ` ${text}`;
  return text.slice(0, Math.max(minLength, Math.min(text.length, maxLength)));
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" ? value : fallback;
}

/** A number within the bounds, two decimals like a judge's score: 0.35 rather than 0.3517243. */
function answerNumber(node: Schema, place: Place, integer: boolean): number {
  const unit = integer ? 1 : 0.01;
  const above = Math.max(
    numberOr(node.minimum, Number.NEGATIVE_INFINITY),
    numberOr(node.exclusiveMinimum, Number.NEGATIVE_INFINITY) + unit,
  );
  const below = Math.min(
    numberOr(node.maximum, Number.POSITIVE_INFINITY),
    numberOr(node.exclusiveMaximum, Number.POSITIVE_INFINITY) - unit,
  );
  const low = Number.isFinite(above) ? above : Math.min(0, below - 10);
  const high = Number.isFinite(below) ? below : low + 10;
  if (integer) {
    const first = Math.ceil(low);
    return first + choose(place, Math.max(1, Math.min(Math.floor(high) - first + 1, 11)));
  }
  const steps = Math.max(0, Math.min(Math.floor((high - low) * 100), 1000));
  const value = Math.round((low + choose(place, steps + 1) / 100) * 100) / 100;
  return Math.min(Math.max(value, low), high);
}
