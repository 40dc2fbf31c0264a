import { describe, expect, it } from "vitest";
import {
  evaluationResult,
  evaluationSummary,
  metricData,
  metricSummary,
  testResult,
} from "../../test/fixtures/results.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import { codeBlock, inlineText } from "./markdown/markdown-text.ts";
import { describeRunTotals, renderMarkdownReport } from "./markdown-report.ts";

const failing = testResult({
  name: "answers > answer 7",
  index: 600000,
  file: "evals/answers.eval.ts",
  line: 9,
  input: "Question 7",
  actualOutput: "Answer 7: you are an idiot.",
  metricsData: [
    metricData({
      success: false,
      score: 1,
      reason: "The score is 1.00 because the output calls the user an idiot.",
    }),
  ],
});

function run(overrides: Partial<EvaluationResult> = {}): EvaluationResult {
  return evaluationResult({
    identifier: "pr-42",
    testResults: [testResult({ name: "answers > answer 1" }), failing],
    summary: evaluationSummary({
      metrics: [metricSummary({ meanScore: 0.55, passRate: 0.5, passed: 1, failed: 1 })],
      testCases: { total: 2, passed: 1, failed: 1, unscored: 0 },
    }),
    ...overrides,
  });
}

describe("renderMarkdownReport", () => {
  it("says the totals in plain words, then the metrics, then each failing case in full", () => {
    const markdown = renderMarkdownReport({ result: run() });
    expect(markdown.split("\n")[0]).toBe("## ❌ verdict pr\\-42: 1 of 2 test cases failed");
    expect(markdown).toContain("**2 test cases**: 1 passed, 1 failed.");
    const judged = renderMarkdownReport({
      result: run({ summary: { ...run().summary, judges: ["openai:gpt-4.1"], judgeCalls: 4 } }),
    });
    expect(judged).toContain("; 4 judge calls by openai\\:gpt\\-4\\.1 (0 from the cache)");
    expect(markdown).toContain("| Toxicity (lower is better) | 0.55 | 50\\.0% | 1 | 1 | 0 |");
    expect(markdown).toContain("### Failing test cases (1)");
    expect(markdown).toContain("#### ❌ answers \\> answer 7 — `evals/answers.eval.ts:9`");
    expect(markdown).toContain(
      "| Toxicity | **failed** | 1.00 | 0.50 | The score is 1\\.00 because the output calls the user an idiot\\. |",
    );
    expect(markdown).toContain("**Input**\n```text\nQuestion 7\n```");
    expect(markdown).toContain("**Output**\n```text\nAnswer 7: you are an idiot.\n```");
    // The passing case is counted, not listed.
    expect(markdown).not.toContain("answer 1");
  });

  it("headlines a passing run, and an interrupted one with what was scored and how to resume", () => {
    const passing = run({
      testResults: [testResult({ name: "a" })],
      summary: evaluationSummary({ testCases: { total: 1, passed: 1, failed: 0, unscored: 0 } }),
    });
    expect(renderMarkdownReport({ result: passing }).split("\n")[0]).toBe(
      "## ✅ verdict pr\\-42: the test case passed",
    );
    const interrupted = run({
      summary: evaluationSummary({
        status: "interrupted",
        testCases: { total: 15, passed: 8, failed: 1, unscored: 6 },
      }),
    });
    const markdown = renderMarkdownReport({
      result: interrupted,
      message:
        "Run interrupted: 9 test cases finished and stored.\nResume with: verdict test run --identifier pr-42 --resume",
    });
    expect(markdown.split("\n")[0]).toBe(
      "## ❌ verdict pr\\-42: the run was interrupted\\: 9 of 15 test cases scored, 1 failed",
    );
    expect(markdown).toContain(
      "> Resume with\\: verdict test run \\-\\-identifier pr\\-42 \\-\\-resume",
    );
  });

  it("shows what cases and the judge wrote as text: no link, image, HTML, mention or broken row", () => {
    const hostile = testResult({
      name: "| @octocat <img src=x> [click](https://evil.example) #12",
      input: "```\n# not a heading\n![pixel](https://evil.example/p.png)",
      actualOutput: "<script>alert(1)</script>",
      metricsData: [metricData({ success: false, score: 1, reason: "a | b\nc **bold**" })],
    });
    const markdown = renderMarkdownReport({ result: run({ testResults: [hostile] }) });
    expect(markdown).toContain(
      "#### ❌ \\| \\@octocat \\<img src=x\\> \\[click\\]\\(https\\://evil\\.example\\) \\#12",
    );
    expect(markdown).toContain("| a \\| b c \\*\\*bold\\*\\* |");
    // The input's own fence cannot close the block: the block's fence is longer.
    expect(markdown).toContain(
      "````text\n```\n# not a heading\n![pixel](https://evil.example/p.png)\n````",
    );
    expect(markdown).toContain("```text\n<script>alert(1)</script>\n```");
  });

  it("masks secrets in every field", () => {
    const key = `sk-proj-${"a1B2c3D4".repeat(5)}`;
    const leaky = testResult({
      name: `uses ${key}`,
      actualOutput: `my key is ${key}`,
      metricsData: [metricData({ success: false, score: 1, reason: `it printed ${key}` })],
    });
    const markdown = renderMarkdownReport({ result: run({ testResults: [leaky] }) });
    expect(markdown).not.toContain(key);
    expect(markdown).not.toContain(key.slice(0, 20));
  });

  it("stays within its length, listing the failing cases that do not fit by name", () => {
    const many = Array.from({ length: 40 }, (_, index) =>
      testResult({
        ...failing,
        name: `case ${index + 1}`,
        index,
        actualOutput: "x".repeat(5000),
      }),
    );
    const markdown = renderMarkdownReport({
      result: run({ testResults: many }),
      maxLength: 20_000,
    });
    expect(markdown.length).toBeLessThan(25_000);
    expect(markdown).toContain("#### ❌ case 1 —");
    // Outputs are cut to 1,000 characters.
    expect(markdown).toContain(`${"x".repeat(999)}…`);
    expect(markdown).not.toContain("x".repeat(1001));
    const left = markdown.match(/(\d+) more failing test cases, details left out/);
    expect(Number(left?.[1])).toBeGreaterThan(20);
    expect(markdown).toContain("- case 40 — `evals/answers.eval.ts:9`");
  });
});

describe("describeRunTotals", () => {
  it("says how the run ended in words", () => {
    const totals = (testCases: EvaluationResult["summary"]["testCases"], status = "completed") =>
      describeRunTotals(
        evaluationResult({
          summary: evaluationSummary({
            testCases,
            status: status as EvaluationResult["summary"]["status"],
          }),
        }),
      );
    expect(totals({ total: 15, passed: 15, failed: 0, unscored: 0 })).toBe(
      "all 15 test cases passed",
    );
    expect(totals({ total: 15, passed: 12, failed: 1, unscored: 2 })).toBe(
      "1 of 15 test cases failed, 2 left unscored by judge errors",
    );
    expect(totals({ total: 15, passed: 3, failed: 0, unscored: 12 }, "quota-exhausted")).toBe(
      "the judge's quota ran out: 3 of 15 test cases scored",
    );
    expect(totals({ total: 0, passed: 0, failed: 0, unscored: 0 })).toBe(
      "no test case was evaluated",
    );
  });
});

describe("markdown text", () => {
  it("escapes the punctuation Markdown and GitHub act on, keeps text on one line, shows hidden characters", () => {
    expect(inlineText("a_b*c\nd\u202Ee", 100)).toBe("a\\_b\\*c d\\<U\\+202E\\>e");
    expect(inlineText("x".repeat(10), 5)).toBe("xxxx…");
  });

  it("fences a code block longer than any backtick run inside it", () => {
    expect(codeBlock("plain", 100)).toBe("```text\nplain\n```");
    expect(codeBlock("a ````` b", 100)).toBe("``````text\na ````` b\n``````");
  });
});
