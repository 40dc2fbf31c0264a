import type { JsonValue } from "./trace-record.ts";

/** Limits of {@link toJsonValue}. */
export interface ToJsonValueOptions {
  /** Longer strings are cut, with a note of how much was left out. @default 10_000 */
  maxStringLength?: number;
  /** Deeper objects become `"[Object]"` / `"[Array]"`. @default 8 */
  maxDepth?: number;
  /** Items of an array, or keys of an object, beyond this are left out with a note. @default 200 */
  maxItems?: number;
  /** Rough budget of characters for the whole value; the rest becomes `"[truncated]"`. @default 100_000 */
  maxTotalLength?: number;
}

// Arrays up to this length are allocated at their final length; a longer one (which V8 would
// allocate as a dictionary) grows as it is filled.
const PREALLOCATED_ITEMS = 10_000;

/**
 * Limits for user data that is stored or hashed whole (test-case metadata and tool calls,
 * dataset files): nothing is cut but absurd depth, so equal data stays equal.
 */
export const WHOLE_VALUE: ToJsonValueOptions = {
  maxStringLength: Number.POSITIVE_INFINITY,
  maxItems: Number.POSITIVE_INFINITY,
  maxTotalLength: Number.POSITIVE_INFINITY,
  maxDepth: 100,
};

/**
 * Turns any value into plain JSON that can always be stored: functions, symbols and bigints
 * become descriptive strings, circular references `"[Circular]"`, errors `{ name, message }`,
 * maps and sets arrays, bytes a size, and huge strings, arrays and objects are cut. Never
 * throws (a getter or proxy that throws becomes `"[Unreadable: …]"`).
 */
export function toJsonValue(value: unknown, options: ToJsonValueOptions = {}): JsonValue {
  const limits = {
    maxStringLength: options.maxStringLength ?? 10_000,
    maxDepth: options.maxDepth ?? 8,
    maxItems: options.maxItems ?? 200,
  };
  let budget = options.maxTotalLength ?? 100_000;
  const ancestors = new Set<object>();

  const cutString = (text: string): string => {
    const limit = Math.min(limits.maxStringLength, Math.max(budget, 0));
    budget -= Math.min(text.length, limit);
    if (text.length <= limit) return text;
    return `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
  };

  const convert = (input: unknown, depth: number): JsonValue => {
    if (budget <= 0) return "[truncated]";
    switch (typeof input) {
      case "string":
        return cutString(input);
      case "number":
        budget -= 8;
        return Number.isFinite(input) ? input : String(input);
      case "boolean":
        budget -= 5;
        return input;
      case "bigint":
        return `${input}n`;
      case "symbol":
        return input.toString();
      case "function":
        return `[Function ${input.name || "anonymous"}]`;
      case "undefined":
        return null;
    }
    if (input === null) return null;
    const object = input as object;
    if (ancestors.has(object)) return "[Circular]";
    try {
      ancestors.add(object);
      return convertObject(object, depth);
    } catch (error) {
      return `[Unreadable: ${describeError(error)}]`;
    } finally {
      ancestors.delete(object);
    }
  };

  const convertItems = (items: Iterable<unknown>, depth: number): JsonValue[] => {
    const converted: JsonValue[] = [];
    let count = 0;
    for (const item of items) {
      if (count === limits.maxItems) {
        converted.push("[more items left out]");
        break;
      }
      converted.push(convert(item, depth + 1));
      count += 1;
    }
    return converted;
  };

  // An array is converted into one of its final length: one grown by `push` keeps room for
  // about 17 items, which a result holding a few verdicts carries for as long as it is kept.
  const convertArray = (items: readonly unknown[], depth: number): JsonValue[] => {
    const kept = Math.min(items.length, limits.maxItems);
    const length = items.length > kept ? kept + 1 : kept;
    const converted: JsonValue[] = length <= PREALLOCATED_ITEMS ? new Array(length) : [];
    for (let index = 0; index < kept; index++) converted[index] = convert(items[index], depth + 1);
    if (length > kept) converted[kept] = "[more items left out]";
    return converted;
  };

  const convertObject = (object: object, depth: number): JsonValue => {
    if (object instanceof Date) {
      return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
    }
    if (object instanceof Error) {
      return { name: object.name, message: cutString(object.message) };
    }
    if (object instanceof RegExp) return object.toString();
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      return `[${object.constructor.name} ${object.byteLength} bytes]`;
    }
    if (object instanceof Promise) return "[Promise]";
    if (object instanceof WeakMap || object instanceof WeakSet) {
      return `[${object.constructor.name}]`;
    }
    if (depth >= limits.maxDepth) return Array.isArray(object) ? "[Array]" : "[Object]";
    if (Array.isArray(object)) return convertArray(object, depth);
    if (object instanceof Set) return convertItems(object, depth);
    if (object instanceof Map) {
      return convertItems(object.entries(), depth);
    }
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return convert(toJSON.call(object), depth + 1);
    const converted: { [key: string]: JsonValue } = {};
    const keys = Object.keys(object);
    for (const [position, key] of keys.entries()) {
      if (position === limits.maxItems) {
        converted["[more keys left out]"] = keys.length - position;
        break;
      }
      budget -= key.length;
      let entry: unknown;
      try {
        entry = (object as Record<string, unknown>)[key];
      } catch (error) {
        converted[key] = `[Unreadable: ${describeError(error)}]`;
        continue;
      }
      // Like JSON.stringify: absent and undefined properties are the same.
      if (entry !== undefined) converted[key] = convert(entry, depth + 1);
    }
    return converted;
  };

  try {
    return convert(value, 0);
  } catch (error) {
    return `[Unreadable: ${describeError(error)}]`;
  }
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "unknown error";
  }
}
