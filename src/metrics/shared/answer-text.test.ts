import { describe, expect, it } from "vitest";
import {
  countWords,
  isRealSentence,
  itemText,
  MAX_ITEM_CHARACTERS,
  MAX_REASON_CHARACTERS,
} from "./answer-text.ts";
import { reasonSchema } from "./verdicts.ts";

describe("reasons", () => {
  it.each([
    "The score is 0.50 because it mocks Sarah.",
    "Too harsh here.",
    "  Rude tone.  ",
    "分数是0.50，因为它嘲笑了莎拉。",
    "スコアは0.50です。",
  ])("accepts the sentence %j", (reason) => {
    expect(isRealSentence(reason)).toBe(true);
    expect(reasonSchema.safeParse({ reason }).success).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["whitespace", "  \n\t "],
    ["a cut-off word", "The"],
    ["a short fragment", "The score"],
    ["one long word", "Inappropriately"],
    ["punctuation", "... !!! ???"],
    ["combining marks and emoji", "\u0301\u0302 \u0303\u0304 😀😀 \u0308\u0308"],
    ["invisible characters", "\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b"],
    ["a runaway answer", "word ".repeat(MAX_REASON_CHARACTERS)],
  ])("refuses %s", (_label, reason) => {
    expect(isRealSentence(reason)).toBe(false);
    expect(reasonSchema.safeParse({ reason }).success).toBe(false);
  });

  it.each([5, null, ["The score is 0.50."], { text: "The score is 0.50." }])(
    "refuses the wrong type %j",
    (reason) => {
      expect(reasonSchema.safeParse({ reason }).success).toBe(false);
    },
  );

  it("counts words in scripts with and without spaces", () => {
    expect(countWords("The score is high.")).toBe(4);
    expect(countWords("莎拉很好")).toBe(4);
    expect(countWords("— … —")).toBe(0);
  });
});

describe("extracted items", () => {
  // deepeval scores an output that is only an emoji or symbols; so does verdict (issue 22).
  it.each(["Sarah is kind.", "Great!", "42", "Ça va.", "👍", "🙂🙂", "❤️", "?!", "...", " 🎉 "])(
    "accepts %j",
    (item) => {
      expect(itemText.safeParse(item).success).toBe(true);
    },
  );

  it.each([
    "",
    "   ",
    "\n\t",
    "\u200b\u200b",
    "\u200d\ufe0f",
    "\u0000\u0007",
    "\u00a0\u3000",
    "\u2800\u3164",
    "x".repeat(MAX_ITEM_CHARACTERS + 1),
  ])("refuses %j", (item) => {
    expect(itemText.safeParse(item).success).toBe(false);
  });

  it("says what a blank item is missing", () => {
    const result = itemText.safeParse("\u200b");
    expect(result.error?.issues[0]?.message).toBe(
      'an item must be text that shows (not blank or invisible characters), got "\u200b"',
    );
  });
});
