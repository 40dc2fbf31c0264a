import { describe, expect, it } from "vitest";
import { normalizeVerdict, normalizeVerdictAnswer } from "./verdicts.ts";

const YES_NO_IDK = ["yes", "no", "idk"];

describe("normalizeVerdict", () => {
  it.each([
    ["yes", "yes"],
    [" Yes. ", "yes"],
    ["NO!", "no"],
    ['"idk"', "idk"],
    ["No, it is off-topic", "no"],
    ["yes.)", "yes"],
  ])("reads %j as %j", (raw, expected) => {
    expect(normalizeVerdict(raw, YES_NO_IDK)).toBe(expected);
  });

  it("leaves unknown words for validation to reject", () => {
    expect(normalizeVerdict("Maybe", YES_NO_IDK)).toBe("maybe");
    expect(normalizeVerdict("yesterday", YES_NO_IDK)).toBe("yesterday");
    expect(normalizeVerdict(3, YES_NO_IDK)).toBe(3);
  });

  it("reads bare strings as verdicts without reasons", () => {
    expect(
      normalizeVerdictAnswer({ verdicts: ["Yes", { verdict: "NO.", reason: "r" }] }, YES_NO_IDK),
    ).toEqual({
      verdicts: [{ verdict: "yes" }, { verdict: "no", reason: "r" }],
    });
  });
});
