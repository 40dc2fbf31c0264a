import { fillJsonString } from "./fill-json-string.ts";

/** Options of {@link fillJsonSchema}. */
export interface FillJsonSchemaOptions {
  /** The JSON schema to satisfy (draft-07 or 2020-12, as zod and the AI SDK emit it). */
  schema: unknown;
  /**
   * Varies the choices (enum members, union branches, booleans, numbers): the same schema and
   * seed always give the same value, different seeds give a realistic mix.
   * @default ""
   */
  seed?: string;
}

type Schema = Record<string, unknown>;

interface Walk {
  root: unknown;
  seed: string;
  /** Values still allowed: bounds the work on schemas that multiply (recursion × minItems). */
  budget: number;
}

// Arrays longer than this are never built, whatever minItems asks: a fake must not hang.
const MAX_ITEMS = 1000;
// Past this depth recursive schemas take their shortest way out (null branch, no items).
const SHALLOW_DEPTH = 6;
const MAX_DEPTH = 40;
const MAX_VALUES = 20_000;

/**
 * Builds a deterministic value that satisfies a JSON schema: every property of objects,
 * `$ref`/`$defs`, `allOf`/`anyOf`/`oneOf`, `enum`, `const`, arrays of `minItems` items (1 when
 * unset, capped at `maxItems`), strings with `minLength`/`maxLength`/`format`, numbers within
 * bounds, booleans and nullable types. Choices come from a hash of the seed and the JSON path.
 * @example
 * const value = fillJsonSchema({
 *   schema: { type: "object", properties: { verdict: { enum: ["yes", "no"] } } },
 *   seed: "Is the sky blue?",
 * }); // { verdict: "no" }, every time for this seed
 */
export function fillJsonSchema(options: FillJsonSchemaOptions): unknown {
  const walk: Walk = { root: options.schema, seed: options.seed ?? "", budget: MAX_VALUES };
  return fillNode({ walk, node: options.schema, path: "$", depth: 0 });
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

interface FillStep {
  walk: Walk;
  node: unknown;
  path: string;
  depth: number;
}

function fillNode(step: FillStep): unknown {
  const { walk, path, depth } = step;
  const given = step.node;
  if (walk.budget-- <= 0 || given === false || depth > MAX_DEPTH) return null;
  if (!isSchema(given)) return "value";
  const node = resolveSchema({ root: walk.root, node: given });
  if ("const" in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) {
    return node.enum[choose({ walk, path, count: node.enum.length })];
  }
  const branches = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = node;
    const branch = chooseBranch({ walk, path, depth, branches });
    const merged = isSchema(branch) ? mergeSchemas([rest, branch]) : branch;
    return fillNode({ walk, node: merged, path, depth: depth + 1 });
  }
  switch (chooseType({ walk, path, depth, node })) {
    case "null":
      return null;
    case "boolean":
      return choose({ walk, path, count: 2 }) === 0;
    case "integer":
      return fillNumber({ walk, path, node, integer: true });
    case "number":
      return fillNumber({ walk, path, node, integer: false });
    case "array":
      return fillArray({ walk, node, path, depth });
    case "object":
      return fillObject({ walk, node, path, depth });
    default:
      return fillJsonString({ node, path, pick: (count) => choose({ walk, path, count }) });
  }
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Inlines `$ref` and `allOf`, so the rest of the walk sees one plain schema. */
function resolveSchema(options: { root: unknown; node: Schema }): Schema {
  let node = options.node;
  for (let hops = 0; hops < 32; hops++) {
    if (typeof node.$ref === "string") {
      const { $ref, ...rest } = node;
      const target = resolvePointer({ root: options.root, reference: $ref });
      node = mergeSchemas([isSchema(target) ? target : {}, rest]);
    } else if (Array.isArray(node.allOf)) {
      const { allOf, ...rest } = node;
      node = mergeSchemas([...allOf.filter(isSchema), rest]);
    } else {
      return node;
    }
  }
  return node;
}

function resolvePointer(options: { root: unknown; reference: string }): unknown {
  if (!options.reference.startsWith("#")) return undefined;
  const tokens = options.reference.slice(1).split("/").filter(Boolean);
  let current: unknown = options.root;
  for (const token of tokens) {
    const key = decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~");
    current = isSchema(current) ? current[key] : undefined;
  }
  return current;
}

function mergeSchemas(schemas: Schema[]): Schema {
  const merged: Schema = {};
  for (const schema of schemas) {
    for (const [key, value] of Object.entries(schema)) {
      const previous = merged[key];
      if (key === "properties" && isSchema(previous) && isSchema(value)) {
        merged[key] = { ...previous, ...value };
      } else if (key === "required" && Array.isArray(previous) && Array.isArray(value)) {
        merged[key] = [...new Set([...previous, ...value])];
      } else {
        merged[key] = value;
      }
    }
  }
  return merged;
}

function choose(options: { walk: Walk; path: string; count: number }): number {
  return hashText(`${options.walk.seed}\u0000${options.path}`) % options.count;
}

function isNullSchema(branch: unknown): boolean {
  return isSchema(branch) && (branch.type === "null" || branch.const === null);
}

function chooseBranch(options: {
  walk: Walk;
  path: string;
  depth: number;
  branches: unknown[];
}): unknown {
  const { walk, path, depth, branches } = options;
  // A judge that answers null where it may answer something says little: prefer real values,
  // except deep in a recursive schema, where null is the way out.
  const nullBranch = branches.find(isNullSchema);
  if (depth > SHALLOW_DEPTH && nullBranch !== undefined) return nullBranch;
  const candidates = branches.filter((branch) => !isNullSchema(branch));
  const pool = candidates.length > 0 ? candidates : branches;
  return pool[choose({ walk, path: `${path}|anyOf`, count: pool.length })];
}

function chooseType(options: { walk: Walk; path: string; depth: number; node: Schema }): string {
  const { node } = options;
  if (typeof node.type === "string") return node.type;
  if (Array.isArray(node.type) && node.type.length > 0) {
    const types = node.type.filter((type): type is string => typeof type === "string");
    if (options.depth > SHALLOW_DEPTH && types.includes("null")) return "null";
    const nonNull = types.filter((type) => type !== "null");
    const pool = nonNull.length > 0 ? nonNull : types;
    return pool[choose({ ...options, path: `${options.path}|type`, count: pool.length })] ?? "null";
  }
  if (isSchema(node.properties) || Array.isArray(node.required)) return "object";
  if ("items" in node || "prefixItems" in node || "minItems" in node) return "array";
  if ("minimum" in node || "maximum" in node || "multipleOf" in node) return "number";
  return "string";
}

function fillObject(options: { walk: Walk; node: Schema; path: string; depth: number }): unknown {
  const { walk, node, path, depth } = options;
  const properties = isSchema(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required.map(String) : [];
  const extraSchema = isSchema(node.additionalProperties) ? node.additionalProperties : {};
  const result: Record<string, unknown> = {};
  const keys = [...new Set([...Object.keys(properties), ...required])];
  for (const key of keys) {
    const child = key in properties ? properties[key] : extraSchema;
    result[key] = fillNode({ walk, node: child, path: `${path}.${key}`, depth: depth + 1 });
  }
  const minProperties = typeof node.minProperties === "number" ? node.minProperties : 0;
  for (let index = 1; Object.keys(result).length < minProperties && index <= MAX_ITEMS; index++) {
    const key = `key${index}`;
    if (key in result) continue;
    result[key] = fillNode({ walk, node: extraSchema, path: `${path}.${key}`, depth: depth + 1 });
  }
  return result;
}

function fillArray(options: { walk: Walk; node: Schema; path: string; depth: number }): unknown[] {
  const { walk, node, path, depth } = options;
  const prefix = Array.isArray(node.prefixItems)
    ? node.prefixItems
    : Array.isArray(node.items)
      ? node.items
      : [];
  const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
  const minItems = typeof node.minItems === "number" ? node.minItems : null;
  const maxItems = typeof node.maxItems === "number" ? node.maxItems : Number.POSITIVE_INFINITY;
  const wanted = minItems ?? (depth > SHALLOW_DEPTH ? 0 : 1);
  const canGrow = rest !== false;
  const length = Math.min(canGrow ? Math.max(wanted, prefix.length) : prefix.length, maxItems);
  const items: unknown[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < Math.min(length, MAX_ITEMS) && walk.budget > 0; index++) {
    const child = index < prefix.length ? prefix[index] : rest;
    let item: unknown;
    // uniqueItems: try other salts until the item differs from those before it.
    for (let attempt = 0; attempt < 20; attempt++) {
      const salt = attempt === 0 ? "" : `~${attempt}`;
      item = fillNode({ walk, node: child, path: `${path}[${index}]${salt}`, depth: depth + 1 });
      if (node.uniqueItems !== true || !seen.has(JSON.stringify(item))) break;
    }
    seen.add(JSON.stringify(item));
    items.push(item);
  }
  return items;
}

function fillNumber(options: { walk: Walk; path: string; node: Schema; integer: boolean }): number {
  const { node, integer } = options;
  const step = typeof node.multipleOf === "number" && node.multipleOf > 0 ? node.multipleOf : null;
  const unit = step ?? (integer ? 1 : 0.01);
  const exclusiveMinimum = bound({ node, key: "exclusiveMinimum", inclusiveKey: "minimum" });
  const exclusiveMaximum = bound({ node, key: "exclusiveMaximum", inclusiveKey: "maximum" });
  let low = typeof node.minimum === "number" ? node.minimum : Number.NEGATIVE_INFINITY;
  let high = typeof node.maximum === "number" ? node.maximum : Number.POSITIVE_INFINITY;
  if (exclusiveMinimum !== null) low = Math.max(low, exclusiveMinimum + unit);
  if (exclusiveMaximum !== null) high = Math.min(high, exclusiveMaximum - unit);
  if (!Number.isFinite(low)) low = Number.isFinite(high) ? Math.min(0, high - 10) : 0;
  if (!Number.isFinite(high)) high = low + 10;
  if (integer || step !== null) {
    const multiple = step !== null && integer ? Math.max(1, Math.ceil(step)) : unit;
    const first = Math.ceil(low / multiple);
    const last = Math.floor(high / multiple);
    if (last < first) return low;
    const count = Math.min(last - first + 1, 11);
    return (first + choose({ ...options, count })) * multiple;
  }
  // Two decimals, like a judge's score: 0.35 rather than 0.3517243.
  const steps = Math.max(0, Math.min(Math.floor((high - low) * 100), 1000));
  const value = Math.round((low + choose({ ...options, count: steps + 1 }) / 100) * 100) / 100;
  return Math.min(Math.max(value, low), high);
}

function bound(options: { node: Schema; key: string; inclusiveKey: string }): number | null {
  const value = options.node[options.key];
  if (typeof value === "number") return value;
  // Draft-04 spelling: a boolean that makes minimum/maximum exclusive.
  const inclusive = options.node[options.inclusiveKey];
  return value === true && typeof inclusive === "number" ? inclusive : null;
}
