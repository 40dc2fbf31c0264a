import { describe, expect, it } from "vitest";
import { rawHiddenCharacters, spoofingResult } from "../../test/fixtures/hidden-characters.ts";
import { describeFailedMetrics } from "./verdict-assertion-error.ts";

describe("describeFailedMetrics", () => {
  it("shows bidi and control characters of names, errors and reasons as <U+XXXX>", () => {
    const [failing] = spoofingResult().testResults;
    const message = describeFailedMetrics({ result: failing as never });
    expect(rawHiddenCharacters(message)).toEqual([]);
    expect(message).toContain("Toxinvoice<U+202E>txt.exe<U+0000><U+2066>x<U+2069> (score: 0.90");
    expect(message).toContain("reason: because a<U+061C>b");
  });
});
