import { describe, expect, it } from "vitest";
import { Golden } from "./golden.ts";
import { LLMTestCase } from "./llm-test-case.ts";

describe("Golden", () => {
  it("keeps given fields and becomes a test case with the application's answer", () => {
    const golden = new Golden({
      name: "shoes",
      input: "What if these shoes don't fit?",
      expectedOutput: "A 30-day refund.",
      context: ["Returns within 30 days."],
      comments: "from the support FAQ",
    });
    expect(golden).toEqual({
      name: "shoes",
      input: "What if these shoes don't fit?",
      expectedOutput: "A 30-day refund.",
      context: ["Returns within 30 days."],
      comments: "from the support FAQ",
    });
    const testCase = golden.toTestCase({ actualOutput: "We refund within 30 days." });
    expect(testCase).toBeInstanceOf(LLMTestCase);
    expect(testCase).toEqual({
      name: "shoes",
      input: "What if these shoes don't fit?",
      expectedOutput: "A 30-day refund.",
      context: ["Returns within 30 days."],
      actualOutput: "We refund within 30 days.",
    });
  });

  it("rejects a golden without an input, naming the field", () => {
    expect(() => new Golden({ name: "g-3" } as never)).toThrow(/Golden "g-3" is invalid: "input"/);
  });
});
