import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { testResultArbitrary } from "../../test/fixtures/result-arbitraries.ts";
import { metricData, testResult } from "../../test/fixtures/results.ts";
import { renderConsoleReport } from "../report/console-report.ts";
import { renderHtmlReport } from "../report/html-report.ts";
import { renderJUnitReport } from "../report/junit-report.ts";
import { emptySpending } from "./spending.ts";
import { findFlakyCases, RunTally, summarizeRun } from "./summarize-run.ts";

/** A case of a 4-trial run whose trials pass as `passes` says. */
function repeatedCase(options: { index: number; passes: boolean[] }) {
  const trials = options.passes.map((passed, trial) => ({
    trial,
    success: passed,
    metricsData: [metricData({ success: passed, score: passed ? 0.1 : 0.9 })],
  }));
  return testResult({
    index: options.index,
    name: `question ${options.index + 1}`,
    success: options.passes.every(Boolean),
    metricsData: trials[0]?.metricsData ?? [],
    trials,
    passedTrials: options.passes.filter(Boolean).length,
  });
}

describe("summarizeRun intervals and flaky cases", () => {
  const scores = [0.1, 0.2, 0.3, 0.9, 0.05, 0.15, 0.6, 0.25];
  const results = scores.map((score, index) =>
    testResult({ index, metricsData: [metricData({ score, success: score <= 0.5 })] }),
  );
  const summary = summarizeRun({
    status: "completed",
    testResults: results,
    spending: emptySpending(),
    durationMs: 10,
  });

  it("gives each metric's mean score a bootstrap interval and its pass rate a Wilson one", () => {
    const [toxicity] = summary.metrics;
    const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
    expect(toxicity?.meanScore).toBeCloseTo(mean, 10);
    const [low, high] = toxicity?.meanScoreInterval ?? [Number.NaN, Number.NaN];
    expect(low).toBeLessThan(mean);
    expect(high).toBeGreaterThan(mean);
    expect(low).toBeGreaterThanOrEqual(Math.min(...scores));
    expect(high).toBeLessThanOrEqual(Math.max(...scores));
    // 6 of 8 passed: Wilson 95% ≈ [0.409, 0.929].
    expect(toxicity?.passRateInterval?.[0]).toBeCloseTo(0.409, 2);
    expect(toxicity?.passRateInterval?.[1]).toBeCloseTo(0.929, 2);
    // Seeded by the scores: the same run summarised twice reads the same.
    expect(
      summarizeRun({
        status: "completed",
        testResults: results,
        spending: emptySpending(),
        durationMs: 10,
      }).metrics[0]?.meanScoreInterval,
    ).toEqual(toxicity?.meanScoreInterval);
    expect(summary.flakyCases).toBeUndefined();
  });

  it("lists the cases of a repeat run that passed some trials and failed others", () => {
    const repeated = summarizeRun({
      status: "completed",
      testResults: [
        repeatedCase({ index: 0, passes: [true, true, true, true] }),
        repeatedCase({ index: 1, passes: [true, false, true, false] }),
        repeatedCase({ index: 2, passes: [false, false, false, false] }),
        repeatedCase({ index: 3, passes: [false, true, true, true] }),
      ],
      spending: emptySpending(),
      durationMs: 10,
    });
    expect(
      repeated.flakyCases?.map(({ name, position, passedTrials, trials }) => [
        name,
        position,
        passedTrials,
        trials,
      ]),
    ).toEqual([
      ["question 2", 2, 2, 4],
      ["question 4", 4, 3, 4],
    ]);
    const [low, high] = repeated.flakyCases?.[0]?.passRateInterval ?? [];
    expect(low).toBeCloseTo(0.15, 2);
    expect(high).toBeCloseTo(0.85, 2);
  });

  it("shows the intervals and the flaky cases in the console and HTML reports", () => {
    const flakyRun = summarizeRun({
      status: "completed",
      testResults: [repeatedCase({ index: 0, passes: [true, false, true] })],
      spending: emptySpending(),
      durationMs: 10,
    });
    const result = {
      testRunId: "run-1",
      identifier: null,
      testResults: results,
      summary: { ...summary, flakyCases: flakyRun.flakyCases },
    };
    const text = renderConsoleReport({ result, width: 80 });
    expect(text).toContain("95% confidence interval");
    expect(text).toMatch(/0\.32 \[0\.\d\d–0\.\d\d\]/);
    expect(text).toMatch(/75\.0% \[40\.9–92\.9%\]/);
    expect(text).toMatch(/#1 question 1: passed 2\/3 trials \(95% CI 20\.8–93\.9%\)/);
    const page = renderHtmlReport({ result, startedAt: null });
    expect(page).toContain("95% CI 40.9–92.9%");
    expect(page).toMatch(/<h2 id="flaky-heading">Flaky cases<\/h2>/);
    expect(page).toContain('href="#case-1"');
    expect(renderJUnitReport({ result })).toContain(
      '<property name="verdict.flakyCase" value="#1 question 1: passed 2/3 trials (95% CI 20.8–93.9%)"/>',
    );
  });
});

describe("RunTally", () => {
  const spending = emptySpending();
  // Cases with distinct indices, shuffled: the order a concurrent run finishes them in.
  const runArbitrary = fc
    .array(testResultArbitrary, { maxLength: 25 })
    .map((results) => results.map((result, index) => ({ ...result, index })))
    .chain((results) =>
      fc
        .shuffledSubarray(results, { minLength: results.length, maxLength: results.length })
        .map((shuffled) => ({ results, shuffled })),
    );

  it("sums up cases added in any order as summarizeRun sums up the same cases in index order", () => {
    fc.assert(
      fc.property(runArbitrary, ({ results, shuffled }) => {
        const tally = new RunTally();
        for (const result of shuffled) tally.add(result);
        const options = {
          status: "completed" as const,
          total: results.length + 2,
          spending,
          durationMs: 5,
        };
        expect(tally.summarize(options)).toEqual(
          summarizeRun({ ...options, testResults: results }),
        );
        expect(tally.flakyCases()).toEqual(findFlakyCases(results));
        expect(tally.count).toBe(results.length);
      }),
      { numRuns: 200 },
    );
  });

  it("draws its intervals from the scores in index order, whatever order the cases finished in", () => {
    const results = Array.from({ length: 40 }, (_, index) =>
      testResult({ index, metricsData: [metricData({ score: ((index * 7) % 40) / 40 })] }),
    );
    const tally = new RunTally();
    for (const result of [...results].reverse()) tally.add(result);
    const options = { status: "completed" as const, spending, durationMs: 1 };
    const expected = summarizeRun({ ...options, testResults: results });
    expect(expected.metrics[0]?.meanScoreInterval).not.toEqual(
      summarizeRun({ ...options, testResults: [...results].reverse() }).metrics[0]
        ?.meanScoreInterval,
    );
    expect(tally.summarize(options)).toEqual(expected);
  });

  it("keeps the order of a list with repeated indices when told to count cases as added", () => {
    const first = repeatedCase({ index: 0, passes: [true, false, true, true] });
    const second = {
      ...repeatedCase({ index: 0, passes: [false, true, true, true] }),
      name: "again",
    };
    const tally = new RunTally({ order: "added" });
    tally.add(first);
    tally.add(second);
    expect(tally.flakyCases().map((flaky) => [flaky.name, flaky.position])).toEqual([
      ["question 1", 1],
      ["again", 2],
    ]);
  });
});
