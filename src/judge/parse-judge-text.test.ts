import { describe, expect, it } from "vitest";
import { MAX_ANSWER_CHARACTERS, parseJudgeText } from "./parse-judge-text.ts";

describe("parseJudgeText", () => {
  it.each([
    ["plain JSON", '{"opinions": ["a"]}', { opinions: ["a"] }],
    ["a code fence", '```json\n{"opinions": ["a"]}\n```', { opinions: ["a"] }],
    ["a fence without a language", '```\n{"reason": "ok"}\n```', { reason: "ok" }],
    ["prose around the JSON", 'Here it is: {"reason": "ok"} Thanks!', { reason: "ok" }],
    ["prose with an apostrophe after", '{"reason": "ok"} Hope it\'s fine', { reason: "ok" }],
    ["trailing commas", '{"opinions": ["a", "b",],}', { opinions: ["a", "b"] }],
    ["single quotes", "{'reason': 'fine'}", { reason: "fine" }],
    ["comments", '{\n  // the list\n  "opinions": ["a"] /* done */\n}', { opinions: ["a"] }],
    [
      "a byte-order mark and zero-width spaces",
      '\uFEFF\u200B{"reason": "ok"}\u200B',
      { reason: "ok" },
    ],
    [
      "brackets and quotes inside strings",
      '{"reason": "a } ] \\" [ {"} tail',
      { reason: 'a } ] " [ {' },
    ],
    [
      "a string containing ', ]'",
      '{"reason": "lists like [a, ] are odd"}',
      { reason: "lists like [a, ] are odd" },
    ],
    [
      "an object that closes before prose with a brace",
      'X: {"reason": "ok"} and {',
      { reason: "ok" },
    ],
  ])("reads %s", (_label, text, expected) => {
    expect(parseJudgeText(text)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["an unclosed string", '{"reason": "The', "inside a string"],
    ["an unclosed array", '{"opinions": [', "inside an array"],
    ["an array cut after an item", '{"opinions": ["a", "b"', "inside an array"],
    ["an unclosed object", '{"verdicts": [{"verdict": "yes"}', "inside an array"],
    ["an object cut after its last value", '{"reason": "The score is 0.5."', "inside an object"],
    ["a lone brace", "{", "inside an object"],
    ["an unclosed single-quoted string", "{'reason': 'The", "inside a string"],
    ["an unclosed comment", '{"opinions": [] /* note', "inside a comment"],
    ["an unclosed code fence", '```json\n{"opinions": ["a"]}\n', "inside a code fence"],
    ["an unclosed string in a fence", '```json\n{"opinions": ["a', "inside a string"],
  ])("refuses %s as cut off", (_label, text, where) => {
    const parsed = parseJudgeText(text);
    expect(parsed.ok).toBe(false);
    expect(parsed).toMatchObject({ problem: expect.stringContaining("the answer was cut off") });
    expect(parsed).toMatchObject({ problem: expect.stringContaining(where) });
  });

  it.each([
    ["no JSON", "I think it is fine.", "no JSON object found in the answer"],
    ["blank", "  \n ", "the answer was empty"],
    ["invisible characters only", "\u200B\uFEFF\u2060", "the answer was empty"],
    ["mismatched brackets", '{"opinions": ["a"}', 'brackets do not match: "}" at character 18'],
    [
      "a huge answer",
      `{"reason": "${"a ".repeat(MAX_ANSWER_CHARACTERS)}"}`,
      `more than the ${MAX_ANSWER_CHARACTERS} any step accepts`,
    ],
  ])("says what is wrong with %s", (_label, text, problem) => {
    const parsed = parseJudgeText(text);
    expect(parsed.ok).toBe(false);
    expect(parsed).toMatchObject({ problem: expect.stringContaining(problem) });
  });

  it("survives nesting deeper than any recursive parser", () => {
    const deep = `{"opinions": ${"[".repeat(50_000)}`;
    expect(parseJudgeText(deep)).toMatchObject({ ok: false });
    const closed = `{"opinions": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    expect(parseJudgeText(closed).ok).toBe(true);
  });
});
