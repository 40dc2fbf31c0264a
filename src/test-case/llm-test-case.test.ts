import { describe, expect, it } from "vitest";
import { PNG_BYTES } from "../../test/fixtures/images.ts";
import { EvalError } from "../errors/eval-error.ts";
import { image } from "./image.ts";
import { describeTestCase, isBlankField, isBlankText, LLMTestCase } from "./llm-test-case.ts";

describe("LLMTestCase", () => {
  it("keeps given fields and leaves absent ones absent", () => {
    const testCase = new LLMTestCase({ input: "q", actualOutput: "a", context: ["c"] });
    expect(testCase).toEqual({ input: "q", actualOutput: "a", context: ["c"] });
    expect("expectedOutput" in testCase).toBe(false);
  });

  it("rejects a wrongly typed field with a message naming it", () => {
    expect(
      () =>
        new LLMTestCase({ input: "q", name: "bad", context: "not a list" as unknown as string[] }),
    ).toThrow(/Test case "bad" is invalid: "context": .*arrays of strings/);
    try {
      new LLMTestCase({ input: 42 as unknown as string });
    } catch (error) {
      expect(error).toBeInstanceOf(EvalError);
      expect((error as EvalError).code).toBe("INVALID_TEST_CASE");
    }
  });

  it.each([
    [
      "input a number",
      { input: 42 },
      /"input": must be text, or a list of text and image\(\) parts; got a number/,
    ],
    ["input missing", { actualOutput: "a" }, /"input": must be text.*got nothing/],
    [
      "a part that is no text or image",
      { input: ["a", 5] },
      /"input\[1\]": must be text or an image part made with image\(\); got a number/,
    ],
    [
      "an image part without source",
      { input: ["a", { type: "image" }] },
      /"input\[1\]": is an image part that has no source: make image parts with image/,
    ],
    [
      "an image part with a null source",
      { input: [{ type: "image", source: null }] },
      /"input\[0\]": is an image part that has no source/,
    ],
    [
      "an image part of unknown kind",
      { input: "q", actualOutput: [{ type: "image", source: { kind: "ftp" } }] },
      /"actualOutput\[0\]": .*unknown source kind "ftp"/,
    ],
    [
      "an image part with a bad URL",
      { input: [{ type: "image", source: { kind: "url", url: "http://" } }] },
      /"input\[0\]": .*unusable URL "http:\/\/"/,
    ],
    [
      "a bytes part without bytes",
      { input: [{ type: "image", source: { kind: "bytes", data: [1, 2] } }] },
      /"input\[0\]": .*bytes source without bytes/,
    ],
    ["metadata a list", { input: "q", metadata: [] }, /"metadata": must be an object/],
    ["a tool call without name", { input: "q", toolsCalled: [{}] }, /"toolsCalled\[0\]\.name"/],
  ])("names the field when %s", (_label, fields, message) => {
    expect(() => new LLMTestCase(fields as never)).toThrow(message);
  });

  it("keeps metadata that JSON cannot hold as it is (it is converted where stored)", () => {
    const circular: Record<string, unknown> = { id: 1n };
    circular.self = circular;
    const testCase = new LLMTestCase({ input: "q", metadata: circular });
    expect(testCase.metadata).toBe(circular);
  });

  it("turns a field whose reading throws into an error, not a crash", () => {
    const fields = {
      get input(): string {
        throw new Error("boom");
      },
    };
    expect(() => new LLMTestCase(fields)).toThrow(/is invalid: .*cannot be read \(boom\)/);
  });

  it("names test cases by name, position or input", () => {
    expect(describeTestCase({ input: "x", name: "q-1" })).toBe("q-1");
    // Index 3 is the fourth case: counted from 1, as people count.
    expect(describeTestCase({ input: "x" }, 3)).toBe("#4");
    expect(describeTestCase({ input: "a".repeat(60) })).toBe(`${"a".repeat(40)}…`);
  });
});

describe("isBlankField", () => {
  it.each([
    ["missing", undefined, true],
    ["null", null, true],
    ["empty", "", true],
    ["whitespace", " \n\t", true],
    ["zero-width space", "\u200b", true],
    ["zero-width non-joiner and joiner", "\u200c\u200d", true],
    ["word joiner", "\u2060", true],
    ["byte-order mark", "\ufeff", true],
    ["bidi marks and soft hyphen", "\u200e\u200f\u00ad", true],
    ["Hangul filler", "\u3164", true],
    ["no-break and ideographic spaces", "\u00a0\u3000", true],
    ["a mix of invisibles", " \u200b\u2060 \ufeff\u180e ", true],
    ["a list of blank parts", ["  ", "\u200b"], true],
    ["an empty list", [], true],
    ["text", "ok", false],
    ["text among invisibles", "\u200bok\u200b", false],
    ["an emoji", "👍", false],
    ["an image", [image(PNG_BYTES)], false],
  ])("%s → %s", (_label, value, blank) => {
    expect(isBlankField(value)).toBe(blank);
  });

  it("agrees with isBlankText on text", () => {
    expect(isBlankText("\u200b \u200d")).toBe(true);
    expect(isBlankText("a")).toBe(false);
  });
});
