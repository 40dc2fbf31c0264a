import { describe, expect, it } from "vitest";
import { rawHiddenCharacters, spoofingResult } from "../../test/fixtures/hidden-characters.ts";
import type { StoredRun } from "../store/run-store.ts";
import { compareRuns, formatRunComparison } from "./compare-runs.ts";

function storedRun(id: string, identifier: string): StoredRun {
  return {
    id,
    identifier,
    status: "completed",
    startedAt: "2025-06-01T09:30:00.000Z",
    endedAt: "2025-06-01T09:31:00.000Z",
    config: {},
    summary: null,
  };
}

describe("formatRunComparison", () => {
  it("shows bidi controls and control characters in names escaped, each name on one line", () => {
    const spoofed = spoofingResult();
    const baseline = {
      run: storedRun("a\u202Eb", "night\u0000ly\n"),
      results: spoofed.testResults,
    };
    // The candidate fails what the baseline passed, and names a case the baseline lacks.
    const candidate = {
      run: storedRun("c\u2066d", "x\u001b[2Jy"),
      results: spoofed.testResults.map((result) => ({
        ...result,
        name: `${result.name}\u200f2`,
      })),
    };
    const text = formatRunComparison({
      baseline: storedRun("a\u202Eb", "night\u0000ly\n"),
      candidate: candidate.run,
      comparison: compareRuns({ baseline, candidate, maxDrop: 0 }),
      maxDrop: 0,
    });
    expect(rawHiddenCharacters(text)).toEqual([]);
    expect(text).toContain('baseline a<U+202E>b "night<U+0000>ly<U+000A>"');
    expect(text).toContain('candidate c<U+2066>d "x<U+001B>[2Jy"');
    expect(text).toContain("Toxinvoice<U+202E>txt.exe");
  });
});
