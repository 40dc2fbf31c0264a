import { describe, expect, it } from "vitest";
import { z } from "zod";
import { statementsSchema } from "../metrics/answer-relevancy/answer-relevancy-metric.ts";
import { opinionsSchema } from "../metrics/shared/opinions.ts";
import { reasonSchema, verdictsSchema } from "../metrics/shared/verdicts.ts";
import { defaultAnswer } from "./default-answer.ts";
import { toStrictJsonSchema } from "./strict-json-schema.ts";

const seeds = Array.from({ length: 30 }, (_, index) => `prompt ${index}`);

describe("defaultAnswer", () => {
  it("answers every step schema verdict sends, in the strict form sent", () => {
    const toxicityVerdicts = verdictsSchema({ allowed: ["yes", "no"], count: 3, itemName: "x" });
    const steps = [opinionsSchema, statementsSchema, toxicityVerdicts, reasonSchema];
    for (const schema of steps) {
      for (const seed of seeds) {
        const answer = defaultAnswer(toStrictJsonSchema(schema), seed);
        expect(schema.parse(answer)).toEqual(answer);
      }
    }
    const answer = defaultAnswer(toStrictJsonSchema(opinionsSchema), "prompt 0");
    expect(answer).toEqual({ opinions: [expect.stringMatching(/^[a-z]+ opinions 1$/)] });
  });

  it("gives the same answer for the same seed, and a mix of verdicts across seeds", () => {
    const schema = verdictsSchema({ allowed: ["yes", "no", "idk"], count: 4, itemName: "x" });
    const jsonSchema = toStrictJsonSchema(schema);
    const first = defaultAnswer(jsonSchema, "Is the sky blue?");
    expect(defaultAnswer(jsonSchema, "Is the sky blue?")).toEqual(first);
    const verdicts = seeds.flatMap((seed) =>
      schema.parse(defaultAnswer(jsonSchema, seed)).verdicts.map((item) => item.verdict),
    );
    expect(verdicts).toHaveLength(4 * seeds.length);
    expect([...new Set(verdicts)].sort()).toEqual(["idk", "no", "yes"]);
  });

  it("answers plain zod schemas with values zod parses back", () => {
    const schema = z.object({
      name: z.string(),
      summary: z.string().min(40).max(45),
      rating: z.number().int().min(1).max(5),
      score: z.number().min(0).max(1),
      strictlyPositive: z.number().gt(0).lt(1),
      confident: z.boolean(),
      label: z.enum(["good", "bad"]),
      kind: z.literal("grade"),
      note: z.string().nullable(),
      hint: z.string().optional(),
      either: z.union([z.string(), z.number()]),
      tags: z.array(z.string()).min(2).max(4),
      none: z.array(z.string()).max(0),
      details: z.object({ reason: z.string() }).nullable(),
      counts: z.record(z.string(), z.number()),
    });
    for (const seed of seeds) {
      for (const jsonSchema of [z.toJSONSchema(schema), toStrictJsonSchema(schema)]) {
        const answer = schema.parse(defaultAnswer(jsonSchema, seed));
        expect(answer.tags).toHaveLength(2);
        expect(answer.note).not.toBeNull();
        expect(answer.details).not.toBeNull();
      }
    }
  });

  it("refuses keywords it cannot satisfy, saying where and what to do", () => {
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
    expect(() => defaultAnswer(z.toJSONSchema(category), "tree")).toThrow(/"\$ref" \(at \$/);
    expect(() => defaultAnswer(z.toJSONSchema(z.object({ contact: z.email() })), "")).toThrow(
      /"format" \(at \$\.contact\): script this answer with reply\.json\(\)/,
    );
  });
});
