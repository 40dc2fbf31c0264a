import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  evaluationResult,
  evaluationSummary,
  metricData,
  testResult,
} from "../../test/fixtures/results.ts";
import type { TestResult } from "../results/evaluation-result.ts";
import {
  createGitHubActionsReporter,
  escapeAnnotationData,
  escapeAnnotationProperty,
  renderAnnotations,
} from "./github-actions-report.ts";

function failing(overrides: Partial<TestResult> = {}): TestResult {
  return testResult({
    name: "answers > answer 7",
    file: "evals/answers.eval.ts",
    line: 9,
    actualOutput: "Answer 7: you are an idiot.",
    metricsData: [metricData({ success: false, score: 1, reason: "It insults the user." })],
    ...overrides,
  });
}

describe("GitHub Actions annotations", () => {
  it("escapes data and properties as the runner reads them", () => {
    expect(escapeAnnotationData("100%\r\nnext::x")).toBe("100%25%0D%0Anext::x");
    expect(escapeAnnotationProperty("a: b, c%\n")).toBe("a%3A b%2C c%25%0A");
  });

  it("annotates each failing case at its file and line, relative to the checkout", () => {
    const result = evaluationResult({
      testResults: [testResult({ name: "passes" }), failing()],
    });
    const { lines, omitted } = renderAnnotations({
      result,
      cwd: "/work/repo/packages/bot",
      workspace: "/work/repo",
    });
    expect(omitted).toBe(0);
    expect(lines).toEqual([
      "::error file=packages/bot/evals/answers.eval.ts,line=9,title=verdict%3A answers > answer 7::" +
        "Toxicity: score 1.00 > threshold 0.50. It insults the user.%0AOutput: Answer 7: you are an idiot.",
    ]);
  });

  it("keeps case text from ending the command or starting another, and masks secrets", () => {
    const key = `sk-proj-${"Zx9Yw8Vu".repeat(5)}`;
    const result = evaluationResult({
      testResults: [
        failing({
          name: "evil, name: x\n::warning::fake",
          actualOutput: `line one\n::add-mask::${key}\r\n%0A`,
          line: undefined,
        }),
      ],
    });
    const [line = ""] = renderAnnotations({ result, cwd: "/p" }).lines;
    expect(line.split("\n")).toHaveLength(1);
    expect(
      line.startsWith(
        "::error file=evals/answers.eval.ts,title=verdict%3A evil%2C name%3A x %3A%3Awarning%3A%3Afake::",
      ),
    ).toBe(true);
    expect(line).not.toContain(key);
    // "%0A" written by the case stays text: its % is escaped.
    expect(line).toContain("%250A");
  });

  it("annotates at most ten cases, as GitHub shows, and says how many more failed", () => {
    const result = evaluationResult({
      testResults: Array.from({ length: 14 }, (_, index) =>
        failing({ index, name: `case ${index}` }),
      ),
    });
    const folder = mkdtempSync(path.join(tmpdir(), "verdict-gha-"));
    try {
      const summaryFile = path.join(folder, "summary.md");
      writeFileSync(summaryFile, "# Build\n");
      let stdout = "";
      const reporter = createGitHubActionsReporter({
        summaryFile,
        annotate: true,
        cwd: "/p",
        stdout: { write: (text: string) => (stdout += text) },
      });
      reporter.onEvent({
        type: "run-end",
        runId: "run-1",
        result: {
          ...result,
          summary: evaluationSummary({
            testCases: { total: 14, passed: 0, failed: 14, unscored: 0 },
          }),
        },
        message: null,
      });
      const lines = stdout.trim().split("\n");
      expect(lines.filter((line) => line.startsWith("::error "))).toHaveLength(10);
      expect(lines.at(-1)).toBe(
        "verdict: 4 more failing test cases not annotated (GitHub shows 10 per step): see the job summary.",
      );
      const summary = readFileSync(summaryFile, "utf8");
      expect(summary.startsWith("# Build\n\n## ❌ verdict: 14 of 14 test cases failed")).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
