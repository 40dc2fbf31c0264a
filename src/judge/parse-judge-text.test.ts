import { describe, expect, it } from "vitest";
import { parseJudgeText } from "./parse-judge-text.ts";

describe("parseJudgeText", () => {
  it.each([
    ["plain JSON", '{"opinions": ["a"]}', { opinions: ["a"] }],
    ["a code fence", '```json\n{"opinions": ["a"]}\n```', { opinions: ["a"] }],
    ["prose around the JSON", 'Here it is: {"reason": "ok"} Thanks!', { reason: "ok" }],
    ["trailing commas", '{"opinions": ["a", "b",],}', { opinions: ["a", "b"] }],
    ["an unclosed object", '{"verdicts": [{"verdict": "yes"}', { verdicts: [{ verdict: "yes" }] }],
    ["single quotes", "{'reason': 'fine'}", { reason: "fine" }],
  ])("reads %s", (_label, text, expected) => {
    expect(parseJudgeText(text)).toEqual({ ok: true, value: expected });
  });

  it("leaves a string containing ', ]' intact", () => {
    expect(parseJudgeText('{"reason": "lists like [a, ] are odd"}')).toEqual({
      ok: true,
      value: { reason: "lists like [a, ] are odd" },
    });
  });

  it("says what is wrong when there is no JSON", () => {
    expect(parseJudgeText("I think it is fine.")).toEqual({
      ok: false,
      problem: "no JSON object found in the answer",
    });
    expect(parseJudgeText("  ")).toEqual({ ok: false, problem: "the answer was empty" });
  });
});
