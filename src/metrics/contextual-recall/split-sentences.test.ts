import { describe, expect, it } from "vitest";
import { splitSentences } from "../shared/answer-text.ts";

describe("splitSentences", () => {
  it.each([
    [
      "You are eligible for a 30 day full refund at no extra cost.",
      ["You are eligible for a 30 day full refund at no extra cost."],
    ],
    [
      "It opened in 1889. It is 330 m tall! Is it red?",
      ["It opened in 1889.", "It is 330 m tall!", "Is it red?"],
    ],
    [
      "Dr. Smith met Mr. Jones at 3 p.m. They talked.",
      ["Dr. Smith met Mr. Jones at 3 p.m.", "They talked."],
    ],
    [
      "J. R. R. Tolkien wrote it. No. It was not.",
      ["J. R. R. Tolkien wrote it.", "No.", "It was not."],
    ],
    ["It costs $4.50 (e.g. a coffee). Cheap.", ["It costs $4.50 (e.g. a coffee).", "Cheap."]],
    [
      "A line without a stop\n- first item\n- second item",
      ["A line without a stop", "- first item", "- second item"],
    ],
    ["第一句。第二句。", ["第一句。", "第二句。"]],
    ["The tower is in Paris. [image 1]", ["The tower is in Paris. [image 1]"]],
    ["  Padded.   Twice.  ", ["Padded.", "Twice."]],
  ])("splits %j", (text, sentences) => {
    expect(splitSentences(text)).toEqual(sentences);
  });

  it.each(["…", "—", "...", " . ! "])("finds no sentence in %j", (text) => {
    expect(splitSentences(text)).toEqual([]);
  });
});
