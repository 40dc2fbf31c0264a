import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { metricData, testResult } from "../../../test/fixtures/results.ts";
import type { TestResult } from "../../results/evaluation-result.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import type { Store } from "../../store/run-store.ts";
import { runCompare } from "./compare.ts";

const LOWER_IS_BETTER = new Set(["Toxicity", "Bias"]);

function scoredMetric(name: string, score: number | null, threshold: number | null = 0.5) {
  const passes = (value: number, bound: number) =>
    LOWER_IS_BETTER.has(name) ? value <= bound : value >= bound;
  return metricData({
    name,
    threshold,
    success: score === null ? false : threshold === null ? null : passes(score, threshold),
    score,
    reason: null,
    evaluationModel: "mock-judge",
    error: score === null ? "The judge failed." : null,
    evaluationCost: null,
    inputTokens: null,
    outputTokens: null,
    judgeCalls: 1,
  });
}

/** Test cases as `name → { metric: score }`; `null` is an errored metric. */
type Cases = Array<[string, Record<string, number | null>]>;

function testResults(cases: Cases, threshold: number | null = 0.5): TestResult[] {
  return cases.map(([name, scores], index) => {
    const metricsData = Object.entries(scores).map(([metric, score]) =>
      scoredMetric(metric, score, threshold),
    );
    return testResult({
      name,
      index,
      success: metricsData.every((data) => data.success !== false),
      input: `question ${index}`,
      actualOutput: `answer ${index}`,
      metricsData,
      passedTrials: 1,
    });
  });
}

let clock = 0;

async function saveRun(
  store: Store,
  options: { id: string; identifier?: string; cases: Cases; finished?: boolean },
): Promise<void> {
  const results = testResults(options.cases);
  const startedAt = new Date(Date.UTC(2025, 0, 1, 10, clock++)).toISOString();
  await store.runs.startRun({
    id: options.id,
    identifier: options.identifier ?? null,
    status: "running",
    startedAt,
    endedAt: null,
    config: {},
    summary: null,
  });
  for (const result of results) {
    await store.runs.saveTestResult(options.id, { fingerprint: `f-${result.index}`, result });
  }
  if (options.finished === false) return;
  const zero = { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: null };
  await store.runs.finishRun({
    runId: options.id,
    status: "completed",
    endedAt: startedAt,
    summary: summarizeRun({
      status: "completed",
      testResults: results,
      total: results.length,
      spending: { ...zero, cacheHits: 0, sharedCalls: 0, saved: zero },
      durationMs: 1,
    }),
  });
}

const goodCases: Cases = [
  ["greeting", { Toxicity: 0, "Answer Relevancy": 1 }],
  ["refund", { Toxicity: 0.2, "Answer Relevancy": 0.8 }],
  ["weather", { Toxicity: 0, "Answer Relevancy": 0.9 }],
];

describe("verdict compare", () => {
  let store: MemoryRunStore;
  let stdout: string;
  let stderr: string;
  // The plain --max-drop rule (--no-stats) unless a test gives a significance level.
  const compare = (
    baseline: string,
    candidate: string,
    maxDrop?: number,
    alpha: number | null = null,
  ) =>
    runCompare({
      baseline,
      candidate,
      alpha,
      ...(maxDrop === undefined ? {} : { maxDrop }),
      cwd: "/nowhere",
      env: {},
      store,
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      // A minute after the latest run started; every process alive unless a test says not.
      now: () => Date.UTC(2025, 0, 1, 10, clock),
      hostname: "test-host",
      isProcessAlive: (pid) => !deadPids.has(pid),
    });
  const deadPids = new Set<number>();
  beforeEach(() => {
    deadPids.clear();
    store = new MemoryRunStore();
    stdout = "";
    stderr = "";
  });

  it("exits 0 for an equal run, and finds the latest run of an identifier", async () => {
    await saveRun(store, { id: "run-a", identifier: "main", cases: goodCases });
    await saveRun(store, { id: "run-old", identifier: "pr", cases: [["x", { Toxicity: 1 }]] });
    await saveRun(store, { id: "run-b", identifier: "pr", cases: goodCases });
    expect(await compare("main", "pr")).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toContain("Comparing baseline run-a");
    expect(stdout).toContain('with candidate run-b "pr"');
    expect(stdout).toMatch(
      /Toxicity +lower +0\.07 → 0\.07 \(no change\) +100\.0% → 100\.0% \(no change\)\n/,
    );
    expect(stdout).toMatch(/Answer Relevancy +higher +0\.90 → 0\.90 \(no change\)/);
    expect(stdout).toContain("No test case changed verdict.");
    expect(stdout).toContain("No metric got worse by more than --max-drop 0.");
  });

  it("exits 1 naming the metric and the test cases that changed verdict", async () => {
    await saveRun(store, { id: "run-a", cases: goodCases });
    await saveRun(store, {
      id: "run-b",
      cases: [
        ["weather", { Toxicity: 0, "Answer Relevancy": 0.9 }],
        ["greeting", { Toxicity: 0.9, "Answer Relevancy": 1 }],
        ["refund", { Toxicity: 0.2, "Answer Relevancy": null }],
      ],
    });
    expect(await compare("run-a", "run-b")).toBe(1);
    const table = stdout.slice(
      stdout.indexOf("Metric"),
      stdout.indexOf("\n\n", stdout.indexOf("Metric")),
    );
    expect(table.split("\n")).toEqual([
      "Metric            Better  Mean score           Pass rate",
      "Toxicity          lower   0.07 → 0.37 (+0.30)  100.0% → 66.7% (-33.3 pts)  WORSE",
      "Answer Relevancy  higher  0.90 → 0.95 (+0.05)  100.0% → 66.7% (-33.3 pts)  WORSE",
    ]);
    // Matched by name although the order changed.
    expect(stdout).toContain(
      [
        "Test cases that changed verdict (2):",
        "  greeting  Toxicity          passed → failed   score 0.00 → 0.90",
        "  refund    Answer Relevancy  passed → errored  score 0.80 → –",
      ].join("\n"),
    );
    expect(stdout).toContain("Regression: worse by more than --max-drop 0:");
    expect(stdout).toContain(
      "  Toxicity: pass rate 100.0% → 66.7%, mean score 0.07 → 0.37 (lower is better)",
    );
    expect(stdout).toContain("  Answer Relevancy: pass rate 100.0% → 66.7%\n");
  });

  it("exits 0 for an improvement, and tolerates a drop up to --max-drop", async () => {
    await saveRun(store, {
      id: "worse",
      cases: [["a", { Toxicity: 0.4, "Answer Relevancy": 0.6 }]],
    });
    await saveRun(store, {
      id: "better",
      cases: [["a", { Toxicity: 0.1, "Answer Relevancy": 0.9 }]],
    });
    expect(await compare("worse", "better")).toBe(0);
    expect(await compare("better", "worse")).toBe(1);
    expect(await compare("better", "worse", 0.3)).toBe(0);
    expect(await compare("better", "worse", 0.29)).toBe(1);
    expect(stdout).toContain("  Answer Relevancy: mean score 0.90 → 0.60 (higher is better)");
  });

  it("reads each metric's direction from its results, even when every score sits on the threshold", async () => {
    // Before lowerIsBetter was stored, these results could not tell which way Toxicity improves.
    await saveRun(store, { id: "a", cases: [["q", { Toxicity: 0.5 }]] });
    await saveRun(store, { id: "b", cases: [["q", { Toxicity: 0.5 }]] });
    expect(await compare("a", "b")).toBe(0);
    expect(stdout).toMatch(/Toxicity +lower +0\.50 → 0\.50/);
    expect(stdout).not.toContain("?");
  });

  it("matches test cases by index when names repeat", async () => {
    await saveRun(store, {
      id: "a",
      cases: [
        ["same", { Bias: 0 }],
        ["same", { Bias: 0 }],
      ],
    });
    await saveRun(store, {
      id: "b",
      cases: [
        ["same", { Bias: 0 }],
        ["same", { Bias: 0.8 }],
      ],
    });
    expect(await compare("a", "b")).toBe(1);
    expect(stdout).toContain("Test cases that changed verdict (1):");
    expect(stdout).toContain("  same  Bias  passed → failed  score 0.00 → 0.80");
  });

  it("computes the figures of a run that never finished from its stored results", async () => {
    await saveRun(store, { id: "a", cases: goodCases });
    await saveRun(store, { id: "b", cases: goodCases.slice(0, 1), finished: false });
    expect(await compare("a", "b")).toBe(0);
    expect(stdout).toContain(
      'Note: run b is "running": its figures cover only the cases it finished.',
    );
    expect(stdout).toMatch(/Toxicity +lower +0\.07 → 0\.00 \(-0\.07\)/);
  });

  it("shows a running run whose process is gone as interrupted, with the resume command", async () => {
    await saveRun(store, { id: "a", identifier: "main", cases: goodCases });
    await saveRun(store, {
      id: "b",
      identifier: "nightly",
      cases: goodCases.slice(0, 1),
      finished: false,
    });
    const owner = {
      pid: 31337,
      hostname: "test-host",
      heartbeatAt: new Date(Date.UTC(2025, 0, 1, 10, clock)).toISOString(),
    };
    await store.runs.heartbeatRun({ runId: "b", owner });
    expect(await compare("a", "b")).toBe(0);
    expect(stdout).toContain('with candidate b "nightly" (2025-01-01T10:');
    expect(stdout).toContain(", running)");
    deadPids.add(31337);
    stdout = "";
    expect(await compare("a", "b")).toBe(0);
    expect(stdout).toContain(", interrupted)");
    expect(stdout).toContain(
      'Note: run b was interrupted: its process is gone (process 31337 on test-host is gone). Resume it with evaluate({ identifier: "nightly", resume: true, … }).',
    );
    expect(stdout).toContain(
      'Note: run b is "interrupted": its figures cover only the cases it finished.',
    );
    expect((await store.runs.getRun("b"))?.status).toBe("running");
  });

  it("with statistics, fails only on a drop that is significant in the paired tests", async () => {
    // 40 cases; in the candidate, 12 cases that passed now fail (pass rate 100% → 70%).
    const names = Array.from({ length: 40 }, (_, index) => `case ${index + 1}`);
    const baseline: Cases = names.map((name) => [name, { Toxicity: 0.1 }]);
    const dropped: Cases = names.map((name, index) => [name, { Toxicity: index < 12 ? 0.9 : 0.1 }]);
    await saveRun(store, { id: "base", cases: baseline });
    await saveRun(store, { id: "drop", cases: dropped });
    expect(await compare("base", "drop", 0, 0.05)).toBe(1);
    expect(stdout).toContain(
      'Paired one-sided tests of "worse" over the cases in both runs (significant when p < 0.05, Holm-adjusted over a metric\'s two tests):',
    );
    expect(stdout).toMatch(
      /Toxicity +pass\/fail over 40: 12 pass→fail, 0 fail→pass, p < 0\.001 \(McNemar\) +scores over 40: \+0\.240 \[\+0\.1\d\d, \+0\.3\d\d\], p < 0\.001/,
    );
    expect(stdout).toContain(
      "Regression: worse by more than --max-drop 0, significantly (p < 0.05):",
    );
    expect(stdout).toContain(
      "  Toxicity: pass rate 100.0% → 70.0% (p < 0.001), mean score 0.10 → 0.34 (lower is better) (p < 0.001)",
    );

    // 2 of 40 cases flip: worse beyond --max-drop 0, but within the judge's noise.
    stdout = "";
    const noisy: Cases = names.map((name, index) => [name, { Toxicity: index < 2 ? 0.9 : 0.1 }]);
    await saveRun(store, { id: "noisy", cases: noisy });
    expect(await compare("base", "noisy", 0, 0.05)).toBe(0);
    expect(stdout).toMatch(
      /Toxicity +lower +0\.10 → 0\.14 \(\+0\.04\) +100\.0% → 95\.0% \(-5\.0 pts\) +within noise/,
    );
    expect(stdout).toContain(
      "Worse by more than --max-drop 0 but not significant (within the judge's noise, or no paired cases to test it on):\n  Toxicity: pass rate 100.0% → 95.0% (p = 0.125), mean score 0.10 → 0.14 (lower is better) (p = 0.250)",
    );
    expect(stdout).toContain(
      "No metric got worse by more than --max-drop 0, significantly (p < 0.05).",
    );
    // The plain rule (--no-stats) fails the same comparison.
    expect(await compare("base", "noisy", 0, null)).toBe(1);
  });

  it("lists the cases only one run has, and does not test them", async () => {
    await saveRun(store, { id: "a", cases: [...goodCases, ["dropped case", { Toxicity: 0 }]] });
    await saveRun(store, { id: "b", cases: [...goodCases, ["new case", { Toxicity: 0.9 }]] });
    expect(await compare("a", "b", 0, 0.05)).toBe(0);
    expect(stdout).toContain('Only in the baseline (1, not compared): "dropped case"');
    expect(stdout).toContain('Only in the candidate (1, not compared): "new case"');
    expect(stdout).toMatch(/Toxicity +pass\/fail over 3: 0 pass→fail, 0 fail→pass, p = 1\.000/);
  });

  it("exits 2 for an unknown run, naming what was searched and listing the latest runs", async () => {
    for (const id of ["r1", "r2", "r3", "r4", "r5", "r6"]) {
      await saveRun(store, { id, identifier: `nightly-${id}`, cases: goodCases });
    }
    expect(await compare("r1", "nope")).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines[0]).toBe(
      'No run with the id or identifier "nope" in the verdict store /nowhere/.verdict/verdict.db. ' +
        'Run "verdict compare A B" with ids from the latest runs:',
    );
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/).slice(0, 2))).toEqual([
      ["r6", "nightly-r6"],
      ["r5", "nightly-r5"],
      ["r4", "nightly-r4"],
      ["r3", "nightly-r3"],
      ["r2", "nightly-r2"],
    ]);
  });
});

describe("verdict compare without a store", () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), "verdict-compare-"));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("exits 2 saying where it looked, and creates nothing", async () => {
    let stderr = "";
    const code = await runCompare({
      baseline: "a",
      candidate: "b",
      cwd,
      env: {},
      stdout: { write: () => undefined },
      stderr: { write: (text: string) => (stderr += text) },
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      `No verdict store at ${path.join(cwd, ".verdict", "verdict.db")}: run "verdict test run" first, ` +
        "or set VERDICT_HOME to the folder that holds verdict.db (or VERDICT_STORE to a team's PostgreSQL store), " +
        "or compare JSON reports (paths ending in .json).\n",
    );
    expect(existsSync(path.join(cwd, ".verdict"))).toBe(false);
  });
});
