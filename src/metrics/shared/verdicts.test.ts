import { describe, expect, it } from "vitest";
import { normalizeVerdict, normalizeVerdictAnswer, verdictsSchema } from "./verdicts.ts";

const YES_NO_IDK = ["yes", "no", "idk"] as const;

describe("normalizeVerdict", () => {
  it.each([
    ["yes", "yes"],
    [" Yes. ", "yes"],
    [" NO ", "no"],
    ["NO!", "no"],
    ['"idk"', "idk"],
    ["yes.)", "yes"],
    ["**No**", "no"],
    ["`idk`", "idk"],
    ["\u200byes\u200b", "yes"],
  ])("reads %j as %j", (raw, expected) => {
    expect(normalizeVerdict(raw, YES_NO_IDK)).toBe(expected);
  });

  it.each([
    "yes/no",
    "yes or no",
    "yes-ish",
    "no idea",
    "No, yes.",
    "No, it is off-topic",
    "maybe",
    "Maybe",
    "yesterday",
    "y",
    "I don't know",
    "",
    "   ",
  ])("leaves %j as it is, for validation to reject", (raw) => {
    expect(normalizeVerdict(raw, YES_NO_IDK)).toBe(raw);
    const schema = verdictsSchema({ allowed: YES_NO_IDK, count: 1, itemName: "statement" });
    const prepared = normalizeVerdictAnswer({ verdicts: [{ verdict: raw }] }, YES_NO_IDK);
    expect(schema.safeParse(prepared).success).toBe(false);
  });

  it.each([3, true, null, ["yes"], { verdict: "yes" }])(
    "leaves the non-string %j for validation to reject",
    (raw) => {
      expect(normalizeVerdict(raw, YES_NO_IDK)).toBe(raw);
    },
  );

  it("reads bare strings as verdicts without reasons", () => {
    expect(
      normalizeVerdictAnswer({ verdicts: ["Yes", { verdict: "NO.", reason: "r" }] }, YES_NO_IDK),
    ).toEqual({
      verdicts: [{ verdict: "yes" }, { verdict: "no", reason: "r" }],
    });
  });
});
