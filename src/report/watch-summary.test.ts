import { describe, expect, it } from "vitest";
import { evaluationResult, metricData, testResult } from "../../test/fixtures/results.ts";
import type { EvaluationResult, JudgeSpending, TestResult } from "../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE } from "../results/fake-judge-notice.ts";
import { emptySpending } from "../results/spending.ts";
import { summarizeRun } from "../results/summarize-run.ts";
import { describeWatchRun } from "./watch-summary.ts";

const FAQ = "evals/faq.eval.ts";

/** A case of `file` scored `score` on Answer Relevancy (passes at 0.7 and above). */
function relevancyCase(file: string, name: string, score: number, index = 0): TestResult {
  return testResult({
    name,
    index,
    file,
    metricsData: [
      metricData({ name: "Answer Relevancy", score, success: score >= 0.7, threshold: 0.7 }),
    ],
  });
}

/** A run of these cases, summarised as verdict summarises a run. */
function runOf(testResults: TestResult[], spending: Partial<JudgeSpending> = {}): EvaluationResult {
  return evaluationResult({
    testResults,
    summary: summarizeRun({
      status: "completed",
      testResults,
      spending: { ...emptySpending(), ...spending },
      durationMs: 0,
    }),
  });
}

/** Run `run` of the session: `rerun` is what the save of {@link FAQ} gave; `others` did not run. */
function describeFaqRerun(options: {
  run?: number;
  before: TestResult[];
  rerun: TestResult[];
  others: TestResult[];
  spending?: Partial<JudgeSpending>;
}): string {
  return describeWatchRun({
    run: options.run ?? 2,
    reason: `${FAQ} changed`,
    files: [FAQ],
    result: runOf(options.rerun, options.spending),
    before: [...options.before, ...options.others],
    after: [...options.rerun, ...options.others],
  });
}

describe("describeWatchRun", () => {
  const faq = [relevancyCase(FAQ, "refund", 0.9, 0), relevancyCase(FAQ, "shipping", 0.5, 1)];
  const tone = [relevancyCase("evals/tone.eval.ts", "greeting", 1, 2)];

  it("says what a re-run ran and paid, which cases flipped, and the suite's mean before → after", () => {
    const text = describeFaqRerun({
      before: faq,
      rerun: [relevancyCase(FAQ, "refund", 0.4, 0), relevancyCase(FAQ, "shipping", 0.8, 1)],
      others: tone,
      spending: { judgeCalls: 3, cacheHits: 5, sharedCalls: 1, costUsd: 0.0021 },
    });
    expect(text.split("\n")).toEqual([
      `Run 2 · ${FAQ} changed · 1 file re-run: 2 cases, 1 passed, 1 failed`,
      "  Judge calls: 3 paid ($0.0021), 5 cache hits, 1 shared",
      `  Flipped: "refund" (${FAQ}) passed → failed`,
      `  Flipped: "shipping" (${FAQ}) failed → passed`,
      // (0.9 + 0.5 + 1) / 3 before, (0.4 + 0.8 + 1) / 3 after: the case of tone counts too.
      "  Means over the suite: Answer Relevancy 0.80 → 0.73",
    ]);
  });

  it("lists only the cases that flipped", () => {
    const text = describeFaqRerun({
      run: 3,
      before: faq,
      rerun: [relevancyCase(FAQ, "refund", 0.95, 0), relevancyCase(FAQ, "shipping", 0.8, 1)],
      others: tone,
    });
    expect(text).toContain(`  Flipped: "shipping" (${FAQ}) failed → passed`);
    expect(text).not.toContain('"refund"');
    expect(text).toContain("  Judge calls: 0 paid, 0 cache hits, 0 shared");
  });

  it("marks an unchanged mean, says when nothing flipped, and counts new and gone cases", () => {
    const text = describeFaqRerun({
      before: faq,
      rerun: [
        relevancyCase(FAQ, "refund", 0.9, 0),
        relevancyCase(FAQ, "returns", 0.5, 1),
        relevancyCase(FAQ, "returns", 0.7, 2),
      ],
      others: [relevancyCase("evals/tone.eval.ts", "greeting", 0.7, 3)],
    });
    expect(text).toContain("  Flipped: none");
    // "shipping" is gone; two cases named "returns" are new (told apart by their order).
    expect(text).toContain("  Since the last run: 2 new cases, 1 case gone");
    // (0.9 + 0.5 + 0.7) / 3 before, (0.9 + 0.5 + 0.7 + 0.7) / 4 after.
    expect(text).toContain("  Means over the suite: Answer Relevancy 0.70 (=)");
  });

  it("describes the first run without comparing, and lists at most ten flips", () => {
    const first = describeWatchRun({
      run: 1,
      reason: null,
      files: [FAQ, "evals/tone.eval.ts"],
      result: runOf([...faq, ...tone], { judgeCalls: 6, costUsd: null }),
      before: [],
      after: [...faq, ...tone],
    });
    expect(first.split("\n")).toEqual([
      "Run 1 · 2 files: 3 cases, 2 passed, 1 failed",
      "  Judge calls: 6 paid (unknown), 0 cache hits, 0 shared",
      "  Means over the suite: Answer Relevancy 0.80",
    ]);

    const many = (score: number) =>
      Array.from({ length: 12 }, (_, index) => relevancyCase(FAQ, `case ${index}`, score, index));
    const flipped = describeFaqRerun({ before: many(0.9), rerun: many(0.1), others: [] });
    expect(flipped.match(/Flipped: /g)).toHaveLength(10);
    expect(flipped).toContain("  … and 2 more flipped");
  });

  it("says that the fake judge's scores are not real", () => {
    const fake = [
      testResult({ file: FAQ, metricsData: [metricData({ evaluationModel: "fake" })] }),
    ];
    const text = describeFaqRerun({ before: fake, rerun: fake, others: [] });
    expect(text.split("\n").at(-1)).toBe(`  ! ${FAKE_JUDGE_NOTICE}`);
    expect(describeFaqRerun({ before: faq, rerun: faq, others: [] })).not.toContain("fake judge");
  });

  it("shows hidden characters of names from test files rather than obeying them", () => {
    const name = "evil\u001b[2J\u202Ename";
    const text = describeWatchRun({
      run: 2,
      reason: "evals/x\nfake line.eval.ts changed",
      files: ["evals/x.eval.ts"],
      result: runOf([]),
      before: [relevancyCase("evals/x.eval.ts", name, 0.9)],
      after: [relevancyCase("evals/x.eval.ts", name, 0.1)],
    });
    expect(text).toContain('Flipped: "evil<U+001B>[2J<U+202E>name"');
    expect(text.split("\n")[0]).toContain("evals/x<U+000A>fake line.eval.ts changed");
  });
});
