import { describe, expect, it } from "vitest";
import { samplePattern } from "./sample-pattern.ts";

describe("samplePattern", () => {
  it.each([
    "^[A-Z]{3}-\\d{2}$",
    "^(?:yes|no)$",
    "^v\\d+\\.\\d+\\.\\d+(-[a-z]+)?$",
    "^[^\\s@]+@[^\\s@]+\\.[a-z]{2,}$",
    "^#[0-9a-fA-F]{6}$",
    "^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])$",
    "^\\u0041+\\x42*$",
    "^[\\w.-]{3,8}$",
    "^a{2,}b?c*$",
  ])("builds a string that %s matches", (pattern) => {
    const sample = samplePattern({ pattern });
    expect(sample).not.toBeNull();
    expect(new RegExp(pattern, "u").test(sample ?? "")).toBe(true);
  });

  it.each(["^(?=a)a$", "^(a)\\1$", "[", "^\\p{Lu}$"])(
    "gives up on %s rather than guess wrong",
    (pattern) => {
      expect(samplePattern({ pattern })).toBeNull();
    },
  );
});
