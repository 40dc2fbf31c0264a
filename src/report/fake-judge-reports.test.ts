import { describe, expect, it } from "vitest";
import { evaluate } from "../evaluate/evaluate.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { FAKE_JUDGE_NOTICE } from "../results/fake-judge-notice.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { renderConsoleReport } from "./console-report.ts";
import { renderHtmlReport } from "./html-report.ts";
import { parseJsonReport, renderJsonReport } from "./json-report.ts";
import { renderJUnitReport } from "./junit-report.ts";
import { renderMarkdownReport } from "./markdown-report.ts";
import { describeWatchRun } from "./watch-summary.ts";

const testCases = [{ name: "greeting", input: "Hi", actualOutput: "Hello, how can I help?" }];

async function runWith(model: NonNullable<ToxicityMetric["model"]>) {
  return evaluate({
    testCases,
    metrics: [new ToxicityMetric({ model })],
    store: false,
    cache: false,
    display: "none",
    handleInterrupt: false,
    env: {},
  });
}

describe("reports of a run scored by the fake judge", () => {
  it("say in every format that the scores are not real", async () => {
    const result = await runWith("fake");
    expect(result.summary.fakeJudge).toBe(true);
    const consoleText = renderConsoleReport({ result });
    // First and last, so neither end of a long report hides it.
    expect(consoleText.split("\n")[2]).toBe(`! ${FAKE_JUDGE_NOTICE}`);
    expect(consoleText.trimEnd().split("\n").at(-1)).toBe(`! ${FAKE_JUDGE_NOTICE}`);
    const json = renderJsonReport({ result });
    expect(JSON.parse(json)).toMatchObject({
      notice: FAKE_JUDGE_NOTICE,
      summary: { fakeJudge: true },
    });
    expect(parseJsonReport({ text: json, source: "report.json" }).summary.fakeJudge).toBe(true);
    const junit = renderJUnitReport({ result });
    expect(junit).toContain(`<!-- ${FAKE_JUDGE_NOTICE} -->`);
    const watch = describeWatchRun({
      run: 1,
      reason: null,
      files: ["evals/greeting.eval.ts"],
      result,
      before: [],
      after: result.testResults,
    });
    expect(watch).toContain(`! ${FAKE_JUDGE_NOTICE}`);
    // A run that kept its summary only still says it, from the summary.
    const summaryOnly = renderConsoleReport({ result: { ...result, testResults: [] }, omitted: 1 });
    expect(summaryOnly.split("\n")[2]).toBe(`! ${FAKE_JUDGE_NOTICE}`);
    expect(junit).toContain('<property name="verdict.fakeJudge"');
    expect(renderHtmlReport({ result })).toMatch(
      /<p class="fake-judge-notice" role="alert"><strong>Fake judge.<\/strong> Scores come from verdict&#39;s fake judge[^<]*NOT real/,
    );
    // Under the headline of a job summary or comment, as a GitHub warning.
    expect(renderMarkdownReport({ result }).split("\n").slice(2, 4)).toEqual([
      "> [!WARNING]",
      "> Scores come from verdict's fake judge \\(VERDICT\\_MODEL=fake\\)\\: they are NOT real\\. To score for real, set a judge model and its key \\(e\\.g\\. OPENAI\\_API\\_KEY in \\.env\\) and run again without the fake judge\\.",
    ]);
  });

  it("say nothing of it when a real judge scored", async () => {
    const result = await runWith(new MockJudge({ answers: [{ opinions: [] }] }));
    expect(result.summary.fakeJudge).toBeUndefined();
    expect(renderConsoleReport({ result })).not.toContain("fake judge");
    expect(renderJsonReport({ result })).not.toContain("fake judge");
    expect(renderJUnitReport({ result })).not.toContain("fake judge");
    expect(renderHtmlReport({ result })).not.toContain(`class="fake-judge-notice"`);
  });
});
