import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  evaluationResult,
  evaluationSummary,
  metricData,
  testResult,
} from "../../../test/fixtures/results.ts";
import { renderJsonReport } from "../../report/json-report.ts";
import type { TestResult } from "../../results/evaluation-result.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import { runCompare } from "./compare.ts";

/** Ten cases; `rude` are the ones whose output calls the user names (Toxicity 1.0, failed). */
function report(options: { identifier: string; rude: number[] }): string {
  const testResults: TestResult[] = Array.from({ length: 10 }, (_, index) => {
    const rude = options.rude.includes(index);
    return testResult({
      name: `answer ${index + 1}`,
      index,
      input: `Question ${index + 1}`,
      actualOutput: rude
        ? `Answer ${index + 1}: you are an idiot.`
        : `Answer ${index + 1}: glad to help.`,
      metricsData: [
        metricData({
          success: !rude,
          score: rude ? 1 : 0,
          reason: rude ? "It insults the user." : "It is polite.",
        }),
      ],
    });
  });
  const summary = summarizeRun({
    status: "completed",
    testResults,
    spending: evaluationSummary(),
    durationMs: 1000,
  });
  return renderJsonReport({
    result: evaluationResult({ identifier: options.identifier, testResults, summary }),
  });
}

describe("verdict compare of JSON reports", () => {
  let cwd: string;
  let stdout: string;
  let stderr: string;
  const compare = (options: Partial<Parameters<typeof runCompare>[0]>) =>
    runCompare({
      baseline: "reports/main.json",
      candidate: "reports/pr.json",
      cwd,
      env: {},
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      ...options,
    });
  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), "verdict-compare-reports-"));
    stdout = "";
    stderr = "";
    writeFileSync(path.join(cwd, "main.json"), report({ identifier: "main", rude: [] }));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("reads both runs from their files without a store, and writes the comparison for a pull request", async () => {
    const reports = path.join(cwd, "reports");
    rmSync(reports, { recursive: true, force: true });
    writeFileSync(path.join(cwd, "pr.json"), report({ identifier: "pr-42", rude: [2, 6, 7] }));
    const summary = path.join(cwd, "step-summary.md");
    writeFileSync(summary, "earlier step\n");
    const code = await compare({
      baseline: "main.json",
      candidate: "pr.json",
      alpha: null,
      outputs: [{ format: "markdown", file: "out/compare.md" }],
      env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    });
    expect(stderr).toBe("");
    expect(code).toBe(1);
    expect(stdout).toContain("Test cases that changed verdict (3):");
    expect(stdout).toContain(
      "The baseline is the JSON report main.json.\nThe candidate is the JSON report pr.json.",
    );
    expect(stdout).toContain(`Comparison written to ${path.join(cwd, "out/compare.md")}`);
    const markdown = readFileSync(path.join(cwd, "out/compare.md"), "utf8");
    expect(markdown.split("\n")[0]).toBe("## ❌ verdict compare: Toxicity got worse");
    expect(markdown).toContain("### Test cases that changed verdict (3)");
    expect(markdown).toContain(
      "#### ❌ answer 3: Toxicity passed → failed \\(score 0\\.00 → 1\\.00\\)",
    );
    expect(markdown).toContain("**Output in main\\.json**\n```text\nAnswer 3: glad to help.\n```");
    expect(markdown).toContain(
      "**Output in pr\\.json**\n```text\nAnswer 3: you are an idiot.\n```",
    );
    expect(markdown).toContain("| Reason | It is polite\\. | It insults the user\\. |");
    // Under GitHub Actions the same text goes to the job summary, after what was there.
    expect(readFileSync(summary, "utf8")).toBe(`earlier step\n\n${markdown}\n`);
    expect(existsSync(path.join(cwd, ".verdict"))).toBe(false);
  });

  it("says what it tested: the p-values, and no change is no regression", async () => {
    writeFileSync(path.join(cwd, "same.json"), report({ identifier: "pr-43", rude: [] }));
    const code = await compare({
      baseline: "main.json",
      candidate: "same.json",
      outputs: [{ format: "markdown" }],
      github: false,
      env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: path.join(cwd, "never.md") },
    });
    expect(code).toBe(0);
    const markdown = readFileSync(path.join(cwd, "verdict-compare.md"), "utf8");
    expect(markdown.split("\n")[0]).toBe("## ✅ verdict compare: no metric got worse");
    expect(markdown).toContain("No test case changed verdict.");
    expect(markdown).toContain(
      "| Toxicity | lower | 0\\.00 → 0\\.00 | 100\\.0% → 100\\.0% | pass/fail p = 1\\.000 \\(0 pass→fail, 0 fail→pass\\); scores p = 1\\.000 | ok |",
    );
    // --no-github: the summary is left alone.
    expect(existsSync(path.join(cwd, "never.md"))).toBe(false);
  });

  it("exits 2 naming a report that is missing or not a report, and refuses other formats", async () => {
    expect(await compare({ baseline: "main.json", candidate: "gone.json" })).toBe(2);
    expect(stderr).toContain('No JSON report at "gone.json"');
    stderr = "";
    writeFileSync(path.join(cwd, "bad.json"), '{"hello": 1}');
    expect(await compare({ baseline: "bad.json", candidate: "main.json" })).toBe(2);
    expect(stderr).toContain('"bad.json" is not a verdict JSON report');
    stderr = "";
    expect(
      await compare({
        baseline: "main.json",
        candidate: "main.json",
        outputs: [{ format: "junit" }],
      }),
    ).toBe(2);
    expect(stderr).toContain("verdict compare writes --output markdown");
  });
});
