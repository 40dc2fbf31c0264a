import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  diffWords,
  formatWordDiff,
  MAX_DIFFED_CHARACTERS,
  type WordDiffPart,
} from "./word-diff.ts";

const side = (parts: WordDiffPart[], drop: WordDiffPart["kind"]) =>
  parts
    .filter((part) => part.kind !== drop)
    .map((part) => part.text)
    .join("");

describe("diffWords", () => {
  it("marks the words that changed, keeping the ones both texts share", () => {
    const parts = diffWords(
      "Refunds for damaged items are sent within two days.",
      "Orders usually ship within two days.",
    );
    expect(parts).not.toBeNull();
    expect(formatWordDiff(parts ?? [])).toBe(
      "[-Refunds for damaged items are sent-]{+Orders usually ship+} within two days.",
    );
  });

  it("tells a changed number or word apart inside a sentence, and an added line", () => {
    expect(formatWordDiff(diffWords("It ships in 2 days.", "It ships in 3 days.") ?? [])).toBe(
      "It ships in [-2-]{+3+} days.",
    );
    expect(formatWordDiff(diffWords("Hello.", "Hello.\nThanks!") ?? [])).toBe(
      "Hello.{+\nThanks!+}",
    );
    expect(diffWords("same", "same")).toEqual([{ kind: "same", text: "same" }]);
    expect(formatWordDiff(diffWords("a c", "a x y c") ?? [])).toBe("a {+x y +}c");
  });

  it("spells both texts back exactly, whatever they hold", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (before, after) => {
        const parts = diffWords(before, after);
        if (parts === null) return;
        expect(side(parts, "added")).toBe(before);
        expect(side(parts, "removed")).toBe(after);
        expect(parts.every((part) => part.text !== "")).toBe(true);
      }),
    );
  });

  it("shows nothing to diff for a missing text, a text too long, or two texts with no words in common", () => {
    expect(diffWords(null, "a")).toBeNull();
    expect(diffWords("a", null)).toBeNull();
    expect(diffWords("a".repeat(MAX_DIFFED_CHARACTERS + 1), "a")).toBeNull();
    const words = (prefix: string) =>
      Array.from({ length: 1500 }, (_, index) => `${prefix}${index}`).join(" ");
    expect(diffWords(words("x"), words("y"))).toBeNull();
  });
});
