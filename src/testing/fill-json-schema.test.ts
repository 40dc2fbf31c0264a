import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fillJsonSchema } from "./fill-json-schema.ts";

const seeds = Array.from({ length: 30 }, (_, index) => `prompt ${index}`);

/** Fills the JSON schema zod makes of `schema`, and returns what zod makes of the value. */
function fillFromZod(options: { schema: z.ZodType; seed: string }): unknown {
  const value = fillJsonSchema({ schema: z.toJSONSchema(options.schema), seed: options.seed });
  return options.schema.parse(value);
}

describe("fillJsonSchema", () => {
  it("satisfies the schemas judges ask for, for every seed", () => {
    const statement = z.object({
      statement: z.string().min(3),
      verdict: z.enum(["yes", "no", "idk"]),
      reason: z.string().nullable(),
    });
    const schema = z.object({
      statements: z.array(statement).min(2).max(5),
      score: z.number().min(0).max(1),
      rating: z.number().int().min(1).max(5),
      strictlyPositive: z.number().gt(0).lt(1),
      confident: z.boolean(),
      kind: z.literal("verdicts"),
      tags: z.array(z.string()).max(0),
      contact: z.email(),
      id: z.uuid(),
      at: z.iso.datetime(),
      day: z.iso.date(),
      link: z.url(),
      code: z.string().regex(/^[A-Z]{3}-\d{2}$/),
      detail: z.union([z.object({ kind: z.literal("a"), a: z.string() }), z.number()]),
      counts: z.record(z.string(), z.number()),
      pair: z.tuple([z.string(), z.number()]),
    });
    for (const seed of seeds) {
      expect(() => fillFromZod({ schema, seed })).not.toThrow();
    }
  });

  it("gives the same value for the same seed, and a mix of enum members across seeds", () => {
    const schema = z.object({ verdicts: z.array(z.enum(["yes", "no", "idk"])).min(3) });
    const jsonSchema = z.toJSONSchema(schema);
    const first = fillJsonSchema({ schema: jsonSchema, seed: "Is the sky blue?" });
    expect(fillJsonSchema({ schema: jsonSchema, seed: "Is the sky blue?" })).toEqual(first);
    const picked = new Set(
      seeds.flatMap((seed) => schema.parse(fillJsonSchema({ schema: jsonSchema, seed })).verdicts),
    );
    expect([...picked].sort()).toEqual(["idk", "no", "yes"]);
  });

  it("makes one array item when minItems is unset, and never more than maxItems", () => {
    const filled = fillJsonSchema({
      schema: {
        type: "object",
        properties: {
          loose: { type: "array", items: { type: "string" } },
          capped: { type: "array", items: { type: "integer" }, minItems: 9, maxItems: 3 },
        },
      },
    }) as { loose: unknown[]; capped: unknown[] };
    expect(filled.loose).toHaveLength(1);
    expect(filled.capped).toHaveLength(3);
  });

  it("makes distinct items when uniqueItems asks for it", () => {
    for (const seed of seeds) {
      const filled = fillJsonSchema({
        schema: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 3, uniqueItems: true },
        seed,
      }) as string[];
      expect(new Set(filled).size).toBe(3);
    }
  });

  it("follows $ref into $defs and definitions, and ends recursive schemas", () => {
    const schema = {
      type: "object",
      properties: {
        root: { $ref: "#/$defs/node" },
        legacy: { $ref: "#/definitions/leaf" },
      },
      $defs: {
        node: {
          type: "object",
          properties: {
            name: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/node" } },
          },
          required: ["name", "children"],
        },
      },
      definitions: { leaf: { const: 42 } },
    };
    const filled = fillJsonSchema({ schema, seed: "tree" }) as {
      root: { name: string; children: unknown[] };
      legacy: number;
    };
    expect(typeof filled.root.name).toBe("string");
    expect(Array.isArray(filled.root.children)).toBe(true);
    expect(filled.legacy).toBe(42);
    expect(JSON.stringify(filled).length).toBeLessThan(10_000);
  });

  it("fills recursive zod schemas that zod can parse back", () => {
    interface Category {
      name: string;
      subcategories: Category[];
    }
    const category: z.ZodType<Category> = z.object({
      name: z.string(),
      get subcategories() {
        return z.array(category);
      },
    });
    for (const seed of seeds.slice(0, 5)) {
      expect(() => fillFromZod({ schema: category, seed })).not.toThrow();
    }
  });

  it("merges allOf and prefers a value over null in nullable types", () => {
    const filled = fillJsonSchema({
      schema: {
        allOf: [
          { type: "object", properties: { a: { type: ["string", "null"] } }, required: ["a"] },
          { properties: { b: { anyOf: [{ type: "null" }, { type: "integer", minimum: 5 }] } } },
        ],
      },
    }) as { a: unknown; b: unknown };
    expect(typeof filled.a).toBe("string");
    expect(filled.b).toBeGreaterThanOrEqual(5);
    expect(Number.isInteger(filled.b)).toBe(true);
  });

  it("keeps strings within minLength and maxLength", () => {
    for (const seed of seeds) {
      const filled = fillJsonSchema({
        schema: { type: "string", minLength: 40, maxLength: 45 },
        seed,
      }) as string;
      expect(filled.length).toBeGreaterThanOrEqual(40);
      expect(filled.length).toBeLessThanOrEqual(45);
    }
  });

  it("bounds the work on schemas whose size multiplies (recursion times minItems)", () => {
    const filled = fillJsonSchema({
      schema: { type: "array", minItems: 1e12, items: { $ref: "#" } },
      seed: "explode",
    });
    expect(JSON.stringify(filled).length).toBeLessThan(1_000_000);
  });

  it("survives schemas that cannot be satisfied or make no sense", () => {
    expect(fillJsonSchema({ schema: false })).toBeNull();
    expect(fillJsonSchema({ schema: true })).toBe("value");
    expect(fillJsonSchema({ schema: { type: "string", pattern: "([" } })).toEqual(
      expect.any(String),
    );
    expect(fillJsonSchema({ schema: { $ref: "#/$defs/missing" } })).toEqual(expect.any(String));
    expect(fillJsonSchema({ schema: { $ref: "#" } })).toEqual(expect.any(String));
    expect(fillJsonSchema({ schema: { type: "integer", minimum: 10, maximum: 1 } })).toBe(10);
  });
});
