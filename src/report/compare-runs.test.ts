import { describe, expect, it } from "vitest";
import { rawHiddenCharacters, spoofingResult } from "../../test/fixtures/hidden-characters.ts";
import { metricData, testResult } from "../../test/fixtures/results.ts";
import type { StoredRun } from "../store/run-store.ts";
import { compareRuns } from "./compare-runs.ts";
import { formatRunComparison } from "./format-run-comparison.ts";

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

describe("the outputs of changed cases", () => {
  const relevancy = (score: number, reason: string) =>
    metricData({
      name: "Answer Relevancy",
      lowerIsBetter: false,
      threshold: 0.7,
      score,
      success: score >= 0.7,
      reason,
    });
  const runs = () => {
    const baseline = [
      testResult({
        name: "refund",
        index: 0,
        actualOutput: "Refunds for damaged items are sent within two days.",
        metricsData: [relevancy(0.9, "It answers the refund question.")],
      }),
      testResult({ name: "steady", index: 1, actualOutput: "Same answer." }),
    ];
    const candidate = [
      testResult({
        name: "refund",
        index: 0,
        actualOutput: "Orders usually ship within two days.",
        metricsData: [relevancy(0.3, "It talks about shipping, not refunds.")],
      }),
      testResult({ name: "steady", index: 1, actualOutput: "Same answer." }),
    ];
    return {
      baseline: { run: storedRun("run-a", "nightly"), results: baseline },
      candidate: { run: storedRun("run-b", "nightly"), results: candidate },
    };
  };

  it("carries both outputs with each changed verdict", () => {
    const comparison = compareRuns({ ...runs(), maxDrop: 0 });
    expect(comparison.changes).toEqual([
      expect.objectContaining({
        testCase: "refund",
        baselineOutput: "Refunds for damaged items are sent within two days.",
        candidateOutput: "Orders usually ship within two days.",
      }),
    ]);
  });

  it("prints both outputs, their word diff and both reasons under the changed cases", () => {
    const { baseline, candidate } = runs();
    const text = formatRunComparison({
      baseline: baseline.run,
      candidate: candidate.run,
      comparison: compareRuns({ baseline, candidate, maxDrop: 0 }),
      maxDrop: 0,
    });
    const section = text.slice(text.indexOf("Outputs of the test cases that changed verdict"));
    expect(section).toContain(
      "    baseline output: Refunds for damaged items are sent within two days.\n" +
        "    candidate output: Orders usually ship within two days.\n" +
        "    word diff: [-Refunds for damaged items are sent-]{+Orders usually ship+} within two days.\n" +
        "    Answer Relevancy passed → failed:\n" +
        "      baseline reason: It answers the refund question.\n" +
        "      candidate reason: It talks about shipping, not refunds.",
    );
    // A case whose verdict held is not listed.
    expect(section).not.toContain("Same answer.");
  });
});
