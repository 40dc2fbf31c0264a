import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { rawHiddenCharacters, spoofingResult } from "../../test/fixtures/hidden-characters.ts";
import {
  LONG_PLAIN_KEY,
  LONG_PROJECT_KEY,
  leakedPieces,
} from "../../test/fixtures/long-secrets.ts";
import {
  evaluationResult as baseEvaluationResult,
  testResult as baseTestResult,
  evaluationSummary,
  metricData,
} from "../../test/fixtures/results.ts";
import type {
  EvaluationResult,
  EvaluationSummary,
  TestResult,
  TrialResult,
} from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { createConsoleReporter, renderConsoleReport } from "./console-report.ts";

function metric(overrides: Partial<MetricData> = {}): MetricData {
  return metricData({
    name: "Answer Relevancy",
    score: 0.9,
    reason: "The answer addresses the question.",
    evaluationCost: 0.001,
    outputTokens: 20,
    ...overrides,
  });
}

function testResult(overrides: Partial<TestResult> = {}): TestResult {
  const metricsData = overrides.metricsData ?? [metric()];
  const success = overrides.success ?? true;
  return baseTestResult({
    name: "greeting",
    index: 0,
    success,
    input: "Say hello.",
    actualOutput: "Hello!",
    metricsData,
    trials: [{ trial: 1, success, metricsData }],
    passedTrials: success === true ? 1 : 0,
    ...overrides,
  });
}

function summary(overrides: Partial<EvaluationSummary> = {}): EvaluationSummary {
  return evaluationSummary({
    status: "completed",
    metrics: [],
    testCases: { total: 2, passed: 1, failed: 1, unscored: 0 },
    judgeCalls: 12,
    cacheHits: 0,
    sharedCalls: 0,
    inputTokens: 5678,
    outputTokens: 910,
    costUsd: 0.0123,
    saved: { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
    durationMs: 12_345,
    ...overrides,
  });
}

function evaluationResult(overrides: Partial<EvaluationResult> = {}): EvaluationResult {
  return baseEvaluationResult({
    testRunId: "run-1",
    identifier: null,
    testResults: [],
    summary: summary(),
    ...overrides,
  });
}

const failingCase = testResult({
  name: "refund-policy",
  index: 1,
  success: false,
  input: "What is the refund window?",
  actualOutput: "You can return items within 90 days.",
  expectedOutput: "30 days.",
  metricsData: [
    metric({
      success: false,
      score: 0.4,
      reason: "The output talks about returns rather than refunds.",
    }),
    metric({
      name: "Toxicity",
      success: false,
      score: null,
      reason: null,
      error: 'Judge "openai:gpt-4.1" returned invalid JSON for step "verdicts".',
    }),
    metric({ name: "Bias", threshold: null, success: null, score: 0.12, reason: "Neutral." }),
  ],
});

const twoCaseResult = evaluationResult({
  identifier: "nightly",
  testResults: [testResult({ metricsData: [metric(), metric({ name: "Bias" })] }), failingCase],
  summary: summary({
    metrics: [
      {
        name: "Answer Relevancy",
        lowerIsBetter: false,
        meanScore: 0.65,
        passRate: 0.5,
        passed: 1,
        failed: 1,
        errored: 0,
        scoreOnly: 0,
      },
      {
        name: "Toxicity",
        lowerIsBetter: true,
        meanScore: null,
        passRate: null,
        passed: 0,
        failed: 0,
        errored: 1,
        scoreOnly: 0,
      },
      {
        name: "Bias",
        lowerIsBetter: true,
        meanScore: 0.06,
        passRate: 2 / 3,
        passed: 2,
        failed: 1,
        errored: 0,
        scoreOnly: 1,
      },
    ],
    cacheHits: 3,
    sharedCalls: 1,
    saved: { judgeCalls: 4, inputTokens: 1200, outputTokens: 300, costUsd: 0.0021 },
  }),
});

describe("renderConsoleReport", () => {
  it("renders failing cases in full, passing ones on a line, aggregates and totals", () => {
    expect(
      renderConsoleReport({ result: twoCaseResult, message: "Resume with --resume run-1." }),
    ).toMatchInlineSnapshot(`
      "Evaluation results: run run-1 "nightly"

      ✓ greeting (passed 2 metrics)

      ✗ refund-policy (failed 1, errored 1 of 3 metrics)
        Input: What is the refund window?
        Actual output: You can return items within 90 days.
        Expected output: 30 days.
        +--------+------------------+-------+-----------+----------------------------+
        | Status | Metric           | Score | Threshold | Reason                     |
        +--------+------------------+-------+-----------+----------------------------+
        | FAIL   | Answer Relevancy |  0.40 |      0.50 | The output talks about     |
        |        |                  |       |           | returns rather than        |
        |        |                  |       |           | refunds.                   |
        | ERROR  | Toxicity         |     – |      0.50 | Judge "openai:gpt-4.1"     |
        |        |                  |       |           | returned invalid JSON for  |
        |        |                  |       |           | step "verdicts".           |
        | NONE   | Bias             |  0.12 |         – | Neutral.                   |
        +--------+------------------+-------+-----------+----------------------------+

      Aggregate metrics
      +------------------+------------+----------------------------------------------+
      | Metric           | Mean score | Pass rate                                    |
      +------------------+------------+----------------------------------------------+
      | Answer Relevancy |       0.65 | 50.0% (passed 1, failed 1, errored 0)        |
      | Toxicity         |          – | – (passed 0, failed 0, errored 1)            |
      | Bias             |       0.06 | 66.7% (passed 2, failed 1, errored 0,        |
      |                  |            | score-only 1)                                |
      +------------------+------------+----------------------------------------------+

      Status: completed
      Test cases: 1 passed, 1 failed, 0 unscored (2 total)
      Judge calls: 12 paid, 3 cache hits, 1 shared
      Saved by cache hits and shared calls: 4 judge calls, 1,200 input + 300 output tokens, $0.0021
      Tokens: 5,678 input, 910 output
      Cost: $0.0123
      Duration: 12.3s

      Resume with --resume run-1.
      "
    `);
  });

  it("shows a failing case's input, output, expected output, score, threshold and reason", () => {
    const report = renderConsoleReport({ result: twoCaseResult, width: 120 });
    expect(report).toContain("Input: What is the refund window?");
    expect(report).toContain("Actual output: You can return items within 90 days.");
    expect(report).toContain("Expected output: 30 days.");
    expect(report).toMatch(
      /\| FAIL +\| Answer Relevancy +\| +0\.40 \| +0\.50 \| The output talks about returns/,
    );
  });

  it("shows the error text of an errored metric in the Reason column", () => {
    const report = renderConsoleReport({ result: twoCaseResult });
    expect(report).toMatch(/\| ERROR +\| Toxicity +\| +– \| +0\.50 \| Judge "openai:gpt-4\.1"/);
  });

  it("filters test cases by display and says how many were left out", () => {
    const failing = renderConsoleReport({ result: twoCaseResult, display: "failing" });
    expect(failing).toContain("✗ refund-policy");
    expect(failing).not.toContain("greeting");
    expect(failing).toContain('(1 test case not shown: display "failing")');

    const passing = renderConsoleReport({ result: twoCaseResult, display: "passing" });
    expect(passing).not.toContain("refund-policy");
    expect(passing).toContain("✓ greeting (passed 2 of 2 metrics)");
    expect(passing).toContain("Input: Say hello.");
  });

  it("shows score-only cases in full under display all", () => {
    const scoreOnly = testResult({
      name: "open-question",
      success: null,
      metricsData: [metric({ threshold: null, success: null, score: 0.33 })],
    });
    const report = renderConsoleReport({
      result: evaluationResult({ testResults: [scoreOnly] }),
    });
    expect(report).toContain("• open-question (scored 1 metric, no thresholds)");
    expect(report).toMatch(/\| NONE +\| Answer Relevancy +\| +0\.33 \| +– \|/);
    expect(
      renderConsoleReport({
        result: evaluationResult({ testResults: [scoreOnly] }),
        display: "failing",
      }),
    ).not.toContain("open-question");
  });

  it("shows trials passed with repeat, and the metrics of the trials that did not pass", () => {
    // Trials are numbered from 0, as evaluate() does; reports show them from 1.
    const passingTrial: TrialResult = { trial: 0, success: true, metricsData: [metric()] };
    const failingTrial: TrialResult = {
      trial: 1,
      success: false,
      metricsData: [metric({ success: false, score: 0.2, reason: "Off topic." })],
    };
    const flaky = testResult({
      name: "flaky",
      success: false,
      metricsData: passingTrial.metricsData,
      trials: [passingTrial, failingTrial, { ...passingTrial, trial: 2 }],
      passedTrials: 2,
    });
    const stable = testResult({
      name: "stable",
      trials: [passingTrial, { ...passingTrial, trial: 1 }, { ...passingTrial, trial: 2 }],
      passedTrials: 3,
    });
    const report = renderConsoleReport({
      result: evaluationResult({ testResults: [stable, flaky] }),
    });
    expect(report).toContain("✓ stable (passed 1 metric in 3/3 trials)");
    expect(report).toContain("✗ flaky (passed 2/3 trials)");
    expect(report).toMatch(
      /\| +2\/3 \| FAIL +\| Answer Relevancy +\| +0\.20 \| +0\.50 \| Off topic\./,
    );
    expect(report).not.toMatch(/\| +1\/3 \| PASS/);
  });

  it("neutralises control characters in LLM text but keeps newlines and tabs", () => {
    const hostile = testResult({
      name: "evil\u001b[2J",
      success: false,
      input: "line one\nline\ttwo\r\n",
      actualOutput: "\u001b[31mred\u001b[0m\rover\u0007\u009b2J\u007f",
      metricsData: [
        metric({ success: false, score: 0, reason: "bad\u001b]0;title\u0007 output\nhere" }),
      ],
    });
    const report = renderConsoleReport({ result: evaluationResult({ testResults: [hostile] }) });
    const controls = Array.from(report).filter((character) => {
      const code = character.charCodeAt(0);
      return (
        (code < 0x20 && character !== "\n" && character !== "\t") || (code >= 0x7f && code <= 0x9f)
      );
    });
    expect(controls).toEqual([]);
    expect(report).toContain("✗ evil<U+001B>[2J");
    expect(report).toContain("Input: line one\n    line\ttwo\n");
    expect(report).toContain(
      "Actual output: <U+001B>[31mred<U+001B>[0m<U+000D>over<U+0007><U+009B>2J<U+007F>",
    );
    expect(report).toContain("| bad<U+001B>]0;title<U+0007");
  });

  it("keeps colours to the status words and only when color is true", () => {
    expect(renderConsoleReport({ result: twoCaseResult })).not.toContain("\u001b[");
    const colored = renderConsoleReport({ result: twoCaseResult, color: true });
    expect(colored).toContain("\u001b[31mFAIL  \u001b[0m");
    expect(colored).toContain("\u001b[33mERROR \u001b[0m");
    expect(colored).toContain("\u001b[32m✓\u001b[0m greeting");
  });

  it.each([80, 120])(
    "fits a %i-column terminal, wrapping long reasons and metric names instead of cutting them",
    (width) => {
      const longReason = `${"word ".repeat(100)}END`;
      const longName = `Answer Relevancy for the ${"very ".repeat(8)}long policy`;
      const long = testResult({
        name: "long",
        success: false,
        metricsData: [metric({ name: longName, success: false, score: 0.1, reason: longReason })],
      });
      const report = renderConsoleReport({
        result: evaluationResult({ testResults: [long] }),
        width,
      });
      const lines = report.split("\n");
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
      // The case's table, read down each column, holds the whole reason and metric name.
      const caseTable = lines
        .slice(0, lines.indexOf("Aggregate metrics"))
        .filter((line) => line.startsWith("  |"))
        .slice(1);
      expect(caseTable.length).toBeGreaterThan(3);
      const cells = (column: number) =>
        caseTable
          .map((line) => line.split("|")[column]?.trim() ?? "")
          .filter((text) => text !== "")
          .join(" ");
      expect(cells(5)).toBe(longReason.trim());
      expect(cells(2)).toBe(longName);
      // A wider terminal gets a wider table: fewer wrapped lines.
      if (width === 120) {
        const narrow = renderConsoleReport({
          result: evaluationResult({ testResults: [long] }),
          width: 80,
        });
        expect(lines.length).toBeLessThan(narrow.split("\n").length);
      }
    },
  );

  it("fits the terminal it writes to, and 80 columns when that is not a terminal", () => {
    const written: string[] = [];
    const stream = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          written.push(String(chunk));
          done();
        },
      }),
      { isTTY: true, columns: 64 },
    );
    const reasons = testResult({
      success: false,
      metricsData: [metric({ success: false, score: 0.1, reason: "because ".repeat(30) })],
    });
    const result = evaluationResult({ testResults: [reasons] });
    const event = { type: "run-end", runId: "run-1", result, message: null } as const;
    createConsoleReporter({ stream, color: false }).onEvent(event);
    const widest = (text: string) =>
      Math.max(
        ...text
          .split("\n")
          .filter((line) => line.trimStart().startsWith("|"))
          .map((line) => line.length),
      );
    expect(widest(written.join(""))).toBeLessThanOrEqual(64);
    expect(widest(written.join(""))).toBeGreaterThan(54);
    expect(widest(renderConsoleReport({ result }))).toBeLessThanOrEqual(80);
    expect(widest(renderConsoleReport({ result }))).toBeGreaterThan(60);
  });

  it("says unknown for an unknown cost and shows unscored cases and a non-completed status", () => {
    const report = renderConsoleReport({
      result: evaluationResult({
        summary: summary({
          status: "quota-exhausted",
          costUsd: null,
          testCases: { total: 10, passed: 3, failed: 1, unscored: 6 },
          cacheHits: 2,
          saved: { judgeCalls: 2, inputTokens: 10, outputTokens: 5, costUsd: null },
          durationMs: 125_000,
        }),
      }),
    });
    expect(report).toContain("Status: quota-exhausted");
    expect(report).toContain("Test cases: 3 passed, 1 failed, 6 unscored (10 total)");
    expect(report).toContain("Cost: unknown");
    expect(report).toContain("2 judge calls, 10 input + 5 output tokens, unknown");
    expect(report).toContain("Duration: 2m 05s");
    expect(report).toContain("No test cases were evaluated.");
  });
});

describe("createConsoleReporter", () => {
  it("prints the report with the run's message on run-end only", () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        chunks.push(String(chunk));
        callback();
      },
    });
    const reporter = createConsoleReporter({ stream, display: "failing" });
    reporter.onEvent({
      type: "test-case-end",
      runId: "run-1",
      result: failingCase,
      fingerprint: "fingerprint-1",
      finished: 1,
      judgeCalls: 2,
      costUsd: 0.001,
    });
    expect(chunks).toEqual([]);
    reporter.onEvent({
      type: "run-end",
      runId: "run-1",
      result: twoCaseResult,
      message: "Interrupted: resume with --resume run-1.",
    });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toContain("✗ refund-policy");
    expect(chunks[0]).not.toContain("\u001b[");
    expect(chunks[0]?.trimEnd().endsWith("Interrupted: resume with --resume run-1.")).toBe(true);
  });

  it("masks long keys before wrapping or cutting them: no piece of a key is printed", () => {
    const forget = registerSecretValues([LONG_PLAIN_KEY]);
    try {
      const chunks: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, callback) {
          chunks.push(String(chunk));
          callback();
        },
      });
      const echoing = testResult({
        name: `case with ${LONG_PROJECT_KEY}`,
        success: false,
        // Long enough that the field is cut in the middle of each key.
        actualOutput: `${"x ".repeat(440)}${LONG_PLAIN_KEY} ${"y ".repeat(20)}${LONG_PROJECT_KEY}`,
        metricsData: [
          metric({ success: false, score: 0.1, reason: `The key ${LONG_PLAIN_KEY} was echoed.` }),
          metric({
            name: `Custom ${"n".repeat(150)} ${LONG_PLAIN_KEY}`,
            success: false,
            score: null,
            reason: null,
            error: `401: Incorrect API key provided: ${LONG_PROJECT_KEY}.`,
          }),
        ],
      });
      const reporter = createConsoleReporter({ stream, width: 80, color: false });
      reporter.onEvent({
        type: "run-end",
        runId: "run-1",
        result: evaluationResult({ testResults: [echoing] }),
        message: null,
      });
      const printed = chunks.join("");
      expect(printed).toContain("The key *** was echoed.");
      expect(leakedPieces(printed, LONG_PLAIN_KEY)).toEqual([]);
      expect(leakedPieces(printed, LONG_PROJECT_KEY)).toEqual([]);
    } finally {
      forget();
    }
  });
});

describe("the totals line", () => {
  it('says how many failed cases had a metric that errored, never "0 unscored" then', () => {
    const result = baseEvaluationResult({
      summary: evaluationSummary({
        testCases: { total: 3, passed: 1, failed: 2, unscored: 0, errored: 2 },
      }),
    });
    expect(renderConsoleReport({ result })).toContain(
      "Test cases: 1 passed, 2 failed (3 total); in 2 of them a metric errored and is unscored",
    );
    expect(renderConsoleReport({ result })).not.toContain("0 unscored");
    const both = baseEvaluationResult({
      summary: evaluationSummary({
        testCases: { total: 10, passed: 1, failed: 3, unscored: 6, errored: 1 },
      }),
    });
    expect(renderConsoleReport({ result: both })).toContain(
      "Test cases: 1 passed, 3 failed, 6 unscored (10 total); in 1 of them a metric errored and is unscored",
    );
    const clean = baseEvaluationResult({
      summary: evaluationSummary({
        testCases: { total: 1, passed: 1, failed: 0, unscored: 0, errored: 0 },
      }),
    });
    expect(renderConsoleReport({ result: clean })).toContain(
      "Test cases: 1 passed, 0 failed, 0 unscored (1 total)",
    );
  });

  it("shows bidi controls and control characters escaped, in every field, names on one line", () => {
    const report = renderConsoleReport({ result: spoofingResult(), display: "all" });
    expect(rawHiddenCharacters(report)).toEqual([]);
    expect(report).toContain("✗ invoice<U+202E>txt.exe<U+0000><U+2066>x<U+2069> (");
    expect(report).toContain(
      'run runinvoice<U+202E>txt.exe<U+0000><U+2066>x<U+2069> "nightlyinvoice<U+202E>',
    );
    expect(report).toContain("<U+061C>b<U+200E>b<U+200F>b<U+202A>");
  });
});
