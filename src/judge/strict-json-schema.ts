import { type ZodType, z } from "zod";

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function makeNullable(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  if (Array.isArray(schema.type)) {
    return schema.type.includes("null") ? schema : { ...schema, type: [...schema.type, "null"] };
  }
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((entry) => isObject(entry) && entry.type === "null");
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

function tighten(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(tighten);
  if (!isObject(schema)) return schema;
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && isObject(value)) {
      result.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, tighten(property)]),
      );
    } else {
      result[key] = tighten(value);
    }
  }
  if (result.type === "object" && isObject(result.properties)) {
    const required = new Set(Array.isArray(result.required) ? (result.required as string[]) : []);
    const properties = result.properties;
    for (const name of Object.keys(properties)) {
      if (!required.has(name)) properties[name] = makeNullable(properties[name]);
    }
    result.required = Object.keys(properties);
    result.additionalProperties = false;
  }
  return result;
}

const cache = new WeakMap<ZodType, object>();

/**
 * The JSON Schema sent to judges for a zod schema, in the strict form that OpenAI-style
 * structured output accepts: every property required (optional ones become nullable) and
 * no additional properties. Validation still uses the (more lenient) zod schema.
 */
export function toStrictJsonSchema(schema: ZodType): object {
  const cached = cache.get(schema);
  if (cached) return cached;
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema) as JsonObject;
  const strict = tighten(jsonSchema) as object;
  cache.set(schema, strict);
  return strict;
}

/**
 * Whether OpenAI's strict structured output accepts the schema: every object must list all
 * its properties as required and forbid others. Otherwise the schema is sent non-strict,
 * which still guides the model, instead of being rejected.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return true;
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  const record = schema as Record<string, unknown>;
  if (record.type === "object" || typeof record.properties === "object") {
    const properties = Object.keys((record.properties as object | undefined) ?? {});
    const required = Array.isArray(record.required) ? (record.required as unknown[]) : [];
    if (record.additionalProperties !== false) return false;
    if (!properties.every((property) => required.includes(property))) return false;
  }
  return Object.entries(record).every(
    ([key, value]) =>
      ["enum", "const", "default", "examples"].includes(key) || isStrictCompatible(value),
  );
}
