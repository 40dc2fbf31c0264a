import { describe, expect, it } from "vitest";
import { MAX_ANSWER_CHARACTERS, MAX_ANSWER_OBJECTS, parseJudgeText } from "./parse-judge-text.ts";

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
    expect(parseJudgeText(text)).toEqual({ ok: true, values: [expected], enclosed: [] });
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

  it.each([
    [
      "prose with braces before the JSON",
      'Note {x} then {"reason": "The output is polite and kind."}',
      { reason: "The output is polite and kind." },
    ],
    [
      "several braced phrases before the JSON",
      'Given {input} and {actual output}, {the verdict}: {"verdict": "yes"}',
      { verdict: "yes" },
    ],
    ["braces before a JSON that needs repair", "Use {x}: {'reason': 'fine',}", { reason: "fine" }],
  ])("reads %s", (_label, text, expected) => {
    expect(parseJudgeText(text)).toEqual({ ok: true, values: [expected], enclosed: [] });
  });

  it.each([
    ["braces in prose, then a cut-off answer", 'Note {x} then {"reason": "The', "inside a string"],
    ["braces in prose, then an unclosed object", "Given {input}: {", "inside an object"],
    [
      "braces in prose, then an unclosed code fence",
      'Note {x}:\n```json\n{"reason": "ok"}\n',
      "inside a code fence",
    ],
  ])("refuses %s as cut off", (_label, text, where) => {
    expect(parseJudgeText(text)).toMatchObject({
      ok: false,
      problem: expect.stringContaining(`the answer was cut off: it ends ${where}`),
    });
  });

  it("gives up after 20 braced phrases that are not JSON, naming the first problem", () => {
    const text = `${"{x} ".repeat(20)}{"reason": "ok"}`;
    expect(parseJudgeText(text)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^the answer is not valid JSON and could not be repaired/),
    });
    expect(parseJudgeText(`${"{x} ".repeat(19)}{"reason": "ok"}`)).toEqual({
      ok: true,
      values: [{ reason: "ok" }],
      enclosed: [],
    });
  });

  it.each([
    ["stop", '```json\n{"opinions": ["a"]}\n', { ok: true, values: [{ opinions: ["a"] }] }],
    ["STOP", '```json\n{"opinions": ["a"]}', { ok: true, values: [{ opinions: ["a"] }] }],
    ["stop", '```json\n{"opinions": ["a"', { ok: false }],
    ["length", '```json\n{"opinions": ["a"]}\n', { ok: false }],
    [undefined, '```json\n{"opinions": ["a"]}\n', { ok: false }],
  ])(
    "with finish reason %s, reads an unclosed code fence %j as %o",
    (finishReason, text, expected) => {
      expect(parseJudgeText(text, { finishReason })).toMatchObject(expected);
    },
  );

  it.each([
    ["two objects in prose", '{"a": 1} or {"a": 2}', [{ a: 1 }, { a: 2 }]],
    ["the same object twice", '{"a": 1}\n{"a": 1}', [{ a: 1 }, { a: 1 }]],
    [
      "an object in a fence and one bare",
      "```json\n{\"a\": 1}\n```\nThen: {'a': 2,}",
      [{ a: 1 }, { a: 2 }],
    ],
    ["three objects, one per line", '{"a": 1}\n{"a": 2}\n{"a": 3}', [{ a: 1 }, { a: 2 }, { a: 3 }]],
    [
      "an object and braces in prose between",
      '{"a": 1} given {input}, {"a": 2}',
      [{ a: 1 }, { a: 2 }],
    ],
    [
      "JSON escaped in prose, then an object",
      'It says {\\"a\\": [\\"x \\\\\\"y\\\\\\"\\"]} and {"a": 2}',
      [{ a: ['x "y"'] }, { a: 2 }],
    ],
    ["a blockquoted object", '> {\n>   "a": [1,\n>> 2]\n> }', [{ a: [1, 2] }]],
  ])("reads every object of %s, in order", (_label, text, expected) => {
    expect(parseJudgeText(text)).toEqual({ ok: true, values: expected, enclosed: [] });
  });

  it("reads the objects inside braces that do not parse as enclosed, never as the answer", () => {
    expect(parseJudgeText('{note: see {"a": 1} here} {"a": 2}')).toEqual({
      ok: true,
      values: [{ a: 2 }],
      enclosed: [{ a: 1 }],
    });
    // A brace inside a string of braces that did not parse is not a cut-off answer.
    expect(parseJudgeText('{x "a {" y} {"a": 2}')).toEqual({
      ok: true,
      values: [{ a: 2 }],
      enclosed: [],
    });
  });

  it("reads a whole answer that is one JSON value as it is, objects inside it included", () => {
    expect(parseJudgeText('[{"a": 1}, {"a": 2}]')).toEqual({
      ok: true,
      values: [[{ a: 1 }, { a: 2 }]],
      enclosed: [],
    });
  });

  it.each([
    ["a second object cut off", '{"a": 1} and {"a": 2, "b": "tw', "inside a string"],
    ["a second object cut off after a key", '{"a": 1}\n{\n  "a": [', "inside an array"],
    [
      "a second object in a code fence left open",
      '```json\n{"a": 1}\n```\n```json\n{"a": 2}\n',
      "inside a code fence",
    ],
  ])("refuses an answer with %s, though an object before it was whole", (_label, text, where) => {
    expect(parseJudgeText(text)).toMatchObject({
      ok: false,
      problem: expect.stringContaining(`the answer was cut off: it ends ${where}`),
    });
  });

  it(`refuses an answer of more than ${MAX_ANSWER_OBJECTS} objects`, () => {
    const text = '{"a": 1} '.repeat(MAX_ANSWER_OBJECTS + 1);
    expect(parseJudgeText(text)).toMatchObject({
      ok: false,
      problem: `the answer holds more than ${MAX_ANSWER_OBJECTS} JSON objects; answer with only the one JSON object asked for`,
    });
    expect(parseJudgeText('{"a": 1} '.repeat(MAX_ANSWER_OBJECTS))).toMatchObject({ ok: true });
  });

  it("reads a deeply nested object strictly but never sends it to the repairer", () => {
    const deep = (quote: string) =>
      `Note: {${quote}a${quote}: ${"[".repeat(5000)}${"]".repeat(5000)}}`;
    expect(parseJudgeText(deep('"'))).toMatchObject({ ok: true });
    expect(parseJudgeText(deep("'"))).toEqual({
      ok: false,
      problem: "the answer is not valid JSON, and too large or too deep to repair",
    });
  });

  it("survives nesting deeper than any recursive parser", () => {
    const deep = `{"opinions": ${"[".repeat(50_000)}`;
    expect(parseJudgeText(deep)).toMatchObject({ ok: false });
    const closed = `{"opinions": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    expect(parseJudgeText(closed).ok).toBe(true);
  });
});
