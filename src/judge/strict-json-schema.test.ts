import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toStrictJsonSchema } from "./strict-json-schema.ts";

describe("toStrictJsonSchema", () => {
  it("makes every property required, optional ones nullable, and forbids extras", () => {
    const schema = z.object({
      verdicts: z
        .array(z.object({ verdict: z.enum(["yes", "no"]), reason: z.string().nullish() }))
        .length(2),
    });
    expect(toStrictJsonSchema(schema)).toEqual({
      type: "object",
      properties: {
        verdicts: {
          type: "array",
          minItems: 2,
          maxItems: 2,
          items: {
            type: "object",
            properties: {
              verdict: { type: "string", enum: ["yes", "no"] },
              reason: { type: ["string", "null"] },
            },
            required: ["verdict", "reason"],
            additionalProperties: false,
          },
        },
      },
      required: ["verdicts"],
      additionalProperties: false,
    });
  });

  it("adds null to a property that was optional and not nullable", () => {
    const schema = z.object({ note: z.string().optional(), count: z.number() });
    expect(toStrictJsonSchema(schema)).toMatchObject({
      properties: {
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        count: { type: "number" },
      },
      required: ["note", "count"],
    });
  });

  it("returns the same object for the same schema (cheap on hot paths)", () => {
    const schema = z.object({ reason: z.string() });
    expect(toStrictJsonSchema(schema)).toBe(toStrictJsonSchema(schema));
  });
});
