import { describe, expect, it } from "vitest";
import { metricData, testResult } from "../../test/fixtures/results.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import { emptySpending } from "../results/spending.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import type { StoredRun } from "../store/run-store.ts";
import { renderComparisonMarkdown } from "./compare-markdown.ts";
import { compareRuns } from "./compare-runs.ts";
import type { RunWithResults } from "./run-with-results.ts";

/** A run whose cases pass unless listed in `failing` (by position), with their outputs. */
function run(options: {
  id: string;
  failing: number[];
  cases?: number;
  output?: (index: number) => string;
}): RunWithResults {
  const results: TestResult[] = Array.from({ length: options.cases ?? 6 }, (_, index) => {
    const fails = options.failing.includes(index);
    return testResult({
      name: `case ${index + 1}`,
      index,
      actualOutput: options.output?.(index) ?? `output ${index + 1} in ${options.id}`,
      metricsData: [
        metricData({
          success: !fails,
          score: fails ? 0.9 : 0.1,
          reason: `reason in ${options.id}`,
        }),
      ],
    });
  });
  const stored: StoredRun = {
    id: options.id,
    identifier: options.id,
    status: "completed",
    startedAt: "2026-11-26T10:00:00.000Z",
    endedAt: null,
    config: {},
    summary: summarizeRun({
      status: "completed",
      testResults: results,
      spending: emptySpending(),
      durationMs: 0,
    }),
  };
  return { run: stored, results };
}

function markdown(baseline: RunWithResults, candidate: RunWithResults, maxLength?: number) {
  const comparison = compareRuns({ baseline, candidate, maxDrop: 0, alpha: null });
  return renderComparisonMarkdown({
    baseline,
    candidate,
    comparison,
    maxDrop: 0,
    ...(maxLength === undefined ? {} : { maxLength }),
  });
}

describe("renderComparisonMarkdown", () => {
  it("prints an output once when it is the same in both runs, and counts cases, not verdicts", () => {
    const same = (index: number) => `the same answer ${index + 1}`;
    const baseline = run({ id: "base", failing: [], output: same });
    const candidate = run({ id: "cand", failing: [1], output: same });
    // Case 2 is scored by a second metric too, which changes verdict with the first.
    const withBias = (result: TestResult | undefined): TestResult => {
      const first = result?.metricsData[0];
      if (result === undefined || first === undefined) throw new Error("case 2 has no metric");
      return { ...result, metricsData: [first, { ...first, name: "Bias" }] };
    };
    baseline.results[1] = withBias(baseline.results[1]);
    candidate.results[1] = withBias(candidate.results[1]);
    const text = markdown(baseline, candidate);
    expect(text).toContain("### Test cases that changed verdict (1 case, 2 verdicts)");
    expect(text).toContain("**Output (the same in both runs)**");
    expect(text).not.toContain("**Output in");
    expect(text.split("the same answer 2").length - 1).toBe(2);
  });

  it("says untested, as the console does, of a drop no case in both runs could test", () => {
    const baseline = run({ id: "base", failing: [] });
    const renamed = run({ id: "cand", failing: [0, 1, 2] });
    const candidate = {
      ...renamed,
      results: renamed.results.map((result) => ({ ...result, name: `other ${result.name}` })),
    };
    const comparison = compareRuns({ baseline, candidate, maxDrop: 0, alpha: 0.05 });
    const text = renderComparisonMarkdown({ baseline, candidate, comparison, maxDrop: 0 });
    expect(text).toContain("untested: pass rate");
    expect(text).not.toContain("within noise");
  });

  it("lists regressions before improvements, each with both outputs", () => {
    const text = markdown(run({ id: "main", failing: [4] }), run({ id: "pr", failing: [1] }));
    const headings = text.split("\n").filter((line) => line.startsWith("#### "));
    expect(headings).toEqual([
      "#### ❌ case 2: Toxicity passed → failed \\(score 0\\.10 → 0\\.90\\)",
      "#### ✅ case 5: Toxicity failed → passed \\(score 0\\.90 → 0\\.10\\)",
    ]);
    expect(text).toContain("**Output in main**\n```text\noutput 2 in main\n```");
    expect(text).toContain("**Output in pr**\n```text\noutput 2 in pr\n```");
    // --no-stats: the rule is said, and the tests are shown as off.
    expect(text).toContain("A metric fails the comparison when it got worse by more than 0.");
    expect(text).toContain("| off (--no-stats) |");
  });

  it("keeps a comment within its length, naming the changed cases it could not show in full", () => {
    const long = (index: number) => `${index} `.repeat(2000);
    const text = markdown(
      run({ id: "main", failing: [], cases: 60, output: long }),
      run({
        id: "pr",
        failing: Array.from({ length: 60 }, (_, index) => index),
        cases: 60,
        output: long,
      }),
      20_000,
    );
    expect(text.length).toBeLessThan(26_000);
    // Each output is cut to 800 characters.
    expect(text).not.toMatch(/(?:\d+ ){500}/);
    const left = Number(/(\d+) more changed test cases, outputs left out/.exec(text)?.[1]);
    expect(left).toBeGreaterThan(40);
    expect(text).toContain("- case 60: Toxicity passed → failed");
  });
});
