import { describe, expect, it } from "vitest";
import { z } from "zod";
import { chooseStepAnswer } from "./choose-step-answer.ts";
import { parseJudgeText } from "./parse-judge-text.ts";

const opinions = { schema: z.object({ opinions: z.array(z.string()) }) };
const verdicts = {
  schema: z.object({
    verdicts: z.array(z.object({ verdict: z.enum(["yes", "no"]), reason: z.string().nullish() })),
  }),
  // As the metrics' verdict steps do: spellings normalised before validation.
  prepare: (value: unknown) => {
    const answer = value as { verdicts?: Array<{ verdict?: unknown }> };
    if (!Array.isArray(answer?.verdicts)) return value;
    return {
      ...answer,
      verdicts: answer.verdicts.map((item) => ({
        ...item,
        verdict: typeof item.verdict === "string" ? item.verdict.toLowerCase() : item.verdict,
      })),
    };
  },
};

/** The answer `text` gives for `rules`. */
function choose(text: string, rules: Parameters<typeof chooseStepAnswer>[1] = opinions) {
  const parsed = parseJudgeText(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return chooseStepAnswer(parsed, rules);
}

const differing = (count: number) =>
  expect.stringMatching(new RegExp(`^the answer held ${count} differing answers of the shape`));

describe("chooseStepAnswer", () => {
  it.each([
    [
      "a fake answer quoted before the real one",
      'The text says {"opinions": []} but my answer is {"opinions": ["a"]}',
      2,
    ],
    [
      "the real answer before a second thought",
      '{"opinions": ["a"]}\nOr rather: {"opinions": ["b"]}',
      2,
    ],
    [
      "one in a code fence and one bare",
      '```json\n{"opinions": ["a"]}\n```\n{"opinions": ["a", "b"]}',
      2,
    ],
    ["three different answers", '{"opinions": ["a"]} {"opinions": ["b"]} {"opinions": []}', 3],
    ["answers differing in their order", '{"opinions": ["a", "b"]} {"opinions": ["b", "a"]}', 2],
    ["a draft in thinking tags", '<think>Draft {"opinions": []}</think>\n{"opinions": ["a"]}', 2],
    ["an answer of the shape that is not valid", '{"opinions": ["a"]} then {"opinions": "a"}', 2],
    ["a decoy nested in another object", '{"draft": {"opinions": []}}\n{"opinions": ["a"]}', 2],
    ["a decoy in an array of answers", '[{"opinions": []}, {"opinions": ["a"]}]', 2],
    [
      "a decoy written inside a string",
      '{"note": "I wrote {\\"opinions\\": []}"}\n{"opinions": ["a"]}',
      2,
    ],
    ["a decoy escaped in prose", 'It said {\\"opinions\\": []}, so {"opinions": ["a"]}', 2],
    [
      "a decoy inside braces that do not parse",
      '{note: {"opinions": []} was wrong} {"opinions": ["a"]}',
      2,
    ],
    ["a decoy in a blockquote", '> {\n>   "opinions": []\n> }\n\n{"opinions": ["a"]}', 2],
  ])("refuses %s as ambiguous", (_label, text, count) => {
    expect(choose(text)).toEqual({ ok: false, problem: differing(count) });
  });

  it("says how many objects there were when some answers repeat", () => {
    const text = '{"opinions": ["a"]} {"opinions": ["b"]} {"opinions": ["a"]}';
    expect(choose(text)).toMatchObject({
      ok: false,
      problem: expect.stringContaining(
        "held 2 differing answers of the shape asked for (3 JSON objects in all)",
      ),
    });
  });

  it("refuses verdicts that differ in one verdict, or in one reason", () => {
    const answer = (first: string, reason: string) =>
      JSON.stringify({ verdicts: [{ verdict: first, reason }, { verdict: "no" }] });
    expect(choose(`${answer("yes", "r")}\n${answer("no", "r")}`, verdicts)).toMatchObject({
      ok: false,
      problem: differing(2),
    });
    expect(choose(`${answer("yes", "r")}\n${answer("yes", "s")}`, verdicts)).toMatchObject({
      ok: false,
      problem: differing(2),
    });
  });

  it.each([
    ["one answer in prose", 'Here: {"opinions": ["a"]} Thanks!'],
    ["one answer after braces in prose", 'Given {input} and {output}: {"opinions": ["a"]}'],
    ["the same answer twice", '{"opinions": ["a"]}\n```json\n{\n  "opinions": ["a"]\n}\n```'],
    [
      "the same answer with other keys beside it",
      '{"opinions": ["a"]} {"opinions": ["a"], "confidence": 0.9}',
    ],
    [
      "a draft in thinking tags equal to the answer",
      "<think>{\"opinions\": [\"a\"]}</think>{'opinions': ['a'],}",
    ],
    [
      "objects of another shape beside it",
      'Like {"foo": 1} or {"score": 0.5}: {"opinions": ["a"]}',
    ],
    [
      "an answer holding an object of the same shape",
      '{"opinions": ["a"], "earlier": {"opinions": []}}',
    ],
    ["an answer whose strings hold JSON", '{"opinions": ["It says {\\"opinions\\": []}"]}'],
  ])("reads %s", (_label, text) => {
    const expected = text.includes("It says") ? ['It says {"opinions": []}'] : ["a"];
    expect(choose(text)).toEqual({ ok: true, value: { opinions: expected } });
  });

  it("reads the same verdicts in another key order, spelling, or with a null reason left out", () => {
    const text = [
      '{"verdicts": [{"verdict": "yes", "reason": "r"}, {"verdict": "no", "reason": null}]}',
      '{"verdicts": [{"reason": "r", "verdict": "YES"}, {"verdict": "no"}]}',
    ].join("\n");
    expect(choose(text, verdicts)).toEqual({
      ok: true,
      value: {
        verdicts: [
          { verdict: "yes", reason: "r" },
          { verdict: "no", reason: null },
        ],
      },
    });
  });

  it("says what is wrong with the one answer when it is not valid, not with an object beside it", () => {
    expect(choose('Example {"foo": 1}: {"opinions": "a"}')).toEqual({
      ok: false,
      problem: expect.stringMatching(/^opinions: /),
    });
    expect(choose('{"foo": 1}')).toEqual({
      ok: false,
      problem: expect.stringMatching(/^opinions: /),
    });
  });

  it("never takes an answer nested in another object as the answer", () => {
    expect(choose('{"answer": {"opinions": ["a"]}}')).toMatchObject({ ok: false });
  });

  it("reads a structured object like a text answer", () => {
    const both = [{ opinions: ["a"] }, { opinions: [] }];
    expect(chooseStepAnswer({ values: [both], enclosed: [] }, opinions)).toEqual({
      ok: false,
      problem: differing(2),
    });
    expect(chooseStepAnswer({ values: [{ opinions: ["a"] }], enclosed: [] }, opinions)).toEqual({
      ok: true,
      value: { opinions: ["a"] },
    });
  });

  it("walks deeply nested answers without overflowing the stack", () => {
    const deep = `{"x": ${"[".repeat(20_000)}${"]".repeat(20_000)}} {"opinions": ["a"]}`;
    expect(choose(deep)).toEqual({ ok: true, value: { opinions: ["a"] } });
  });

  it("takes an object of a schema that is not an object as an answer when it is valid", () => {
    const list = { schema: z.array(z.string()) };
    expect(chooseStepAnswer({ values: [["a"]], enclosed: [] }, list)).toEqual({
      ok: true,
      value: ["a"],
    });
  });
});
