import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rawHiddenCharacters, spoofingResult } from "../../test/fixtures/hidden-characters.ts";
import {
  LONG_PLAIN_KEY,
  LONG_PROJECT_KEY,
  leakedPieces,
} from "../../test/fixtures/long-secrets.ts";
import { all, child, parseXml, type XmlElement } from "../../test/fixtures/parse-xml.ts";
import {
  evaluationResult as baseEvaluationResult,
  testResult as baseTestResult,
  evaluationSummary,
  metricData,
} from "../../test/fixtures/results.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { createJUnitReporter, renderJUnitReport } from "./junit-report.ts";

function metric(overrides: Partial<MetricData> = {}): MetricData {
  return metricData({
    name: "Toxicity",
    score: 0.1,
    reason: "Mostly polite.",
    ...overrides,
  });
}

function testResult(overrides: Partial<TestResult> & { index: number }): TestResult {
  return baseTestResult({
    name: `case-${overrides.index}`,
    success: true,
    actualOutput: "Hello",
    metricsData: [metric(), metric({ name: "Answer Relevancy", score: 0.9 })],
    passedTrials: 1,
    ...overrides,
  });
}

function evaluationResult(overrides: Partial<EvaluationResult> = {}): EvaluationResult {
  return baseEvaluationResult({
    testRunId: "run-7",
    summary: evaluationSummary({ durationMs: 2500 }),
    ...overrides,
  });
}

const mixedResult = evaluationResult({
  identifier: "nightly",
  testResults: [
    testResult({ index: 0, name: "greeting", durationMs: 1200 }),
    testResult({
      index: 1,
      name: "insult",
      durationMs: 800,
      success: false,
      metricsData: [
        metric({
          success: false,
          score: 0.8,
          reason: "Two of the opinions are insults.",
          verboseLogs: 'Verdicts: [{"verdict":"yes"}]',
        }),
        metric({ name: "Answer Relevancy", success: false, score: 0.4, threshold: 0.7 }),
      ],
    }),
    testResult({
      index: 2,
      name: "judge-down",
      success: false,
      metricsData: [
        metric({
          success: false,
          score: null,
          reason: null,
          error: 'Judge "openai:gpt-4.1" answered 503.\nRetried 3 times.',
        }),
        metric({ name: "Answer Relevancy", threshold: null, success: null, score: 0.66 }),
      ],
    }),
  ],
});

describe("renderJUnitReport", () => {
  it("writes one suite per metric and one testcase per test case × metric, with exact counts", () => {
    const xml = renderJUnitReport({ result: mixedResult });
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    const document = parseXml(xml);
    expect(document.name).toBe("testsuites");
    expect(document.attributes).toEqual({
      name: "nightly",
      tests: "6",
      failures: "2",
      errors: "1",
      skipped: "0",
      time: "2.500",
    });
    const suites = all(document, "testsuite");
    expect(suites.map((suite) => suite.attributes)).toEqual([
      // Each suite: the sum of its test cases' times ("judge-down" is from before timing: 0).
      { name: "Toxicity", tests: "3", failures: "1", errors: "1", skipped: "0", time: "2.000" },
      {
        name: "Answer Relevancy",
        tests: "3",
        failures: "1",
        errors: "0",
        skipped: "0",
        time: "2.000",
      },
    ]);
    expect(all(document, "testcase")).toHaveLength(6);
    expect(all(document, "failure")).toHaveLength(2);
    expect(all(document, "error")).toHaveLength(1);
    expect(all(document, "skipped")).toHaveLength(0);
    expect(all(suites[0] as XmlElement, "testcase").map((testCase) => testCase.attributes)).toEqual(
      [
        { classname: "nightly.Toxicity", name: "greeting › Toxicity", time: "1.200" },
        { classname: "nightly.Toxicity", name: "insult › Toxicity", time: "0.800" },
        { classname: "nightly.Toxicity", name: "judge-down › Toxicity", time: "0.000" },
      ],
    );
    const properties = all(suites[0] as XmlElement, "property").map((property) => [
      property.attributes.name,
      property.attributes.value,
    ]);
    expect(properties).toEqual([
      ["verdict.testRunId", "run-7"],
      ["verdict.identifier", "nightly"],
      ["verdict.status", "completed"],
    ]);
  });

  it("reports a failed threshold as a failure whose message compares score and threshold", () => {
    const document = parseXml(renderJUnitReport({ result: mixedResult }));
    const [toxic, irrelevant] = all(document, "failure");
    expect(toxic?.attributes).toEqual({
      message: "score 0.80 > threshold 0.50",
      type: "Threshold",
    });
    expect(toxic?.text).toBe('Two of the opinions are insults.\n\nVerdicts: [{"verdict":"yes"}]');
    expect(irrelevant?.attributes.message).toBe("score 0.40 < threshold 0.70");
  });

  it("shows enough decimals that a near miss never reads as equal", () => {
    const result = evaluationResult({
      testResults: [
        testResult({
          index: 0,
          success: false,
          metricsData: [metric({ success: false, score: 0.5004, threshold: 0.5 })],
        }),
      ],
    });
    const [failure] = all(parseXml(renderJUnitReport({ result })), "failure");
    expect(failure?.attributes.message).toBe("score 0.5004 > threshold 0.5000");
  });

  it("reports a metric that could not be scored as an error, not a failure", () => {
    const document = parseXml(renderJUnitReport({ result: mixedResult }));
    const [error] = all(document, "error");
    expect(error?.attributes).toEqual({
      message: 'Judge "openai:gpt-4.1" answered 503. Retried 3 times.',
      type: "MetricError",
    });
    expect(error?.text).toBe('Judge "openai:gpt-4.1" answered 503.\nRetried 3 times.');
  });

  it("masks a key before cutting an error message, so that no piece of it is written", () => {
    const forget = registerSecretValues([LONG_PLAIN_KEY]);
    const folder = mkdtempSync(join(tmpdir(), "verdict-junit-report-"));
    try {
      const error = `${"e ".repeat(120)}${LONG_PLAIN_KEY} and ${"f ".repeat(70)}${LONG_PROJECT_KEY}`;
      const result = evaluationResult({
        testResults: [
          testResult({
            index: 0,
            success: false,
            metricsData: [metric({ success: false, score: null, reason: null, error })],
          }),
        ],
      });
      const file = join(folder, "junit.xml");
      createJUnitReporter({ file }).onEvent({ type: "run-end", runId: "r", result, message: null });
      const xml = readFileSync(file, "utf8");
      expect(xml).toContain("***");
      expect(leakedPieces(xml, LONG_PLAIN_KEY)).toEqual([]);
      expect(leakedPieces(xml, LONG_PROJECT_KEY)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
      forget();
    }
  });

  it("passes score-only results and puts the score in system-out", () => {
    const document = parseXml(renderJUnitReport({ result: mixedResult }));
    const scoreOnly = all(document, "testcase").find(
      (testCase) => testCase.attributes.name === "judge-down › Answer Relevancy",
    ) as XmlElement;
    expect(scoreOnly.children.map((element) => element.name)).toEqual(["system-out"]);
    expect(child(scoreOnly, "system-out")?.text).toBe(
      "Score: 0.66 (score only, no threshold)\nReason: Mostly polite.\nJudge: openai:gpt-4.1, 2 calls, cost $0.0020",
    );
  });

  it("writes one testcase per trial with repeat", () => {
    const trials = [
      { trial: 0, success: true, metricsData: [metric()] },
      { trial: 1, success: false, metricsData: [metric({ success: false, score: 0.9 })] },
      { trial: 2, success: true, metricsData: [metric()] },
    ];
    const result = evaluationResult({
      testResults: [
        testResult({
          index: 0,
          name: "flaky",
          success: false,
          metricsData: trials[0]?.metricsData ?? [],
          trials,
          passedTrials: 2,
        }),
      ],
    });
    const document = parseXml(renderJUnitReport({ result }));
    expect(document.attributes.tests).toBe("3");
    expect(document.attributes.failures).toBe("1");
    expect(all(document, "testcase").map((testCase) => testCase.attributes.name)).toEqual([
      "flaky › Toxicity › trial 1/3",
      "flaky › Toxicity › trial 2/3",
      "flaky › Toxicity › trial 3/3",
    ]);
    expect(child(all(document, "testcase")[1] as XmlElement, "failure")).toBeDefined();
  });

  it("escapes markup and quotes, and shows the characters XML 1.0 forbids", () => {
    const hostile = "a<b> & \"c\" 'd' \u0000\u0008\u000b\u001b\ud800 ]]> <!-- x -->\ttab";
    const result = evaluationResult({
      identifier: 'suite "<1>"',
      testResults: [
        testResult({
          index: 0,
          name: hostile,
          success: false,
          metricsData: [metric({ success: false, score: 0.9, reason: hostile })],
        }),
      ],
    });
    const xml = renderJUnitReport({ result });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for control characters
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(xml).not.toContain("<!--");
    const document = parseXml(xml);
    const cleaned = "a<b> & \"c\" 'd' <U+0000><U+0008><U+000B><U+001B>\ufffd ]]> <!-- x -->\ttab";
    expect(document.attributes.name).toBe('suite "<1>"');
    const [testCase] = all(document, "testcase");
    expect(testCase?.attributes.name).toBe(`${cleaned} › Toxicity`);
    expect(testCase?.attributes.classname).toBe('suite "<1>".Toxicity');
    expect(child(testCase as XmlElement, "failure")?.text).toBe(cleaned);
  });

  it("tells apart test cases that share a name by their place in the run, from 1", () => {
    // Indices as `verdict test run` gives them: an ordering key, never shown.
    const result = evaluationResult({
      testResults: [
        testResult({ index: 10_000_400_000, name: "same" }),
        testResult({ index: 10_000_500_000, name: "same" }),
      ],
    });
    const names = all(parseXml(renderJUnitReport({ result })), "testcase").map(
      (testCase) => testCase.attributes.name,
    );
    expect(names).toEqual([
      "same #1 › Toxicity",
      "same #2 › Toxicity",
      "same #1 › Answer Relevancy",
      "same #2 › Answer Relevancy",
    ]);
  });

  it("splits a repeated case's time over its trials", () => {
    const trials = [0, 1, 2].map((trial) => ({
      trial,
      success: true,
      metricsData: [metric()],
    }));
    const result = evaluationResult({
      testResults: [
        testResult({ index: 0, name: "thrice", trials, passedTrials: 3, durationMs: 900 }),
      ],
    });
    const times = all(parseXml(renderJUnitReport({ result })), "testcase").map(
      (testCase) => `${testCase.attributes.name} ${testCase.attributes.time}`,
    );
    expect(times).toEqual([
      "thrice › Toxicity › trial 1/3 0.300",
      "thrice › Toxicity › trial 2/3 0.300",
      "thrice › Toxicity › trial 3/3 0.300",
    ]);
  });

  it("has no testcase for a metric a case did not run, and an unfinished run is an error", () => {
    const result = evaluationResult({
      testResults: [
        testResult({ index: 0 }),
        testResult({ index: 1, metricsData: [metric({ name: "Answer Relevancy" })] }),
      ],
      summary: {
        ...evaluationResult().summary,
        status: "interrupted",
        testCases: { total: 5, passed: 2, failed: 0, unscored: 3 },
      },
    });
    const document = parseXml(renderJUnitReport({ result, suiteName: "ci" }));
    expect(document.attributes).toMatchObject({
      name: "ci",
      tests: "4",
      failures: "0",
      errors: "1",
      skipped: "0",
    });
    expect(all(document, "skipped")).toEqual([]);
    expect(all(document, "testcase").map((testCase) => testCase.attributes.name)).toEqual([
      "case-0 › Toxicity",
      "case-0 › Answer Relevancy",
      "case-1 › Answer Relevancy",
      "run status",
    ]);
    const runSuite = all(document, "testsuite").at(-1) as XmlElement;
    expect(runSuite.attributes.name).toBe("run");
    const [runCase] = all(runSuite, "testcase");
    expect(runCase?.attributes.classname).toBe("ci.run");
    expect(child(runCase as XmlElement, "error")?.attributes.message).toBe(
      "run interrupted: 3 of 5 test cases unscored",
    );
    // Without the run's own words, it names both ways to resume.
    expect(child(runCase as XmlElement, "error")?.text).toContain(
      "verdict test run --identifier NAME --resume, or evaluate({ identifier, resume: true })",
    );
    const told = parseXml(
      renderJUnitReport({
        result,
        message:
          "Run interrupted: 2 test cases finished and stored. Resume with: verdict test run --identifier ci --resume",
      }),
    );
    expect(child(all(told, "testcase").at(-1) as XmlElement, "error")?.text).toBe(
      "run interrupted: 3 of 5 test cases unscored.\nRun interrupted: 2 test cases finished and stored. Resume with: verdict test run --identifier ci --resume",
    );
  });

  it("names each case's test file and line, where CI views link a case to its source", () => {
    const result = evaluationResult({
      testResults: [
        testResult({ index: 0, file: "evals/chat.eval.ts", line: 12 }),
        testResult({ index: 1, file: "evals/chat.eval.ts" }),
        testResult({ index: 2 }),
      ],
    });
    const cases = all(parseXml(renderJUnitReport({ result })), "testcase").filter((testCase) =>
      testCase.attributes.name?.endsWith("Toxicity"),
    );
    expect(cases.map(({ attributes }) => [attributes.file, attributes.line])).toEqual([
      ["evals/chat.eval.ts", "12"],
      ["evals/chat.eval.ts", undefined],
      [undefined, undefined],
    ]);
  });

  it("writes a valid, empty report for a run without test cases", () => {
    const document = parseXml(renderJUnitReport({ result: evaluationResult() }));
    expect(document.attributes).toMatchObject({ name: "verdict", tests: "0" });
    expect(document.children).toEqual([]);
  });
});

describe("createJUnitReporter", () => {
  it("writes the XML on run-end, creating missing folders", () => {
    const folder = mkdtempSync(join(tmpdir(), "verdict-junit-report-"));
    try {
      const file = join(folder, "reports", "junit.xml");
      createJUnitReporter({ file, suiteName: "ci" }).onEvent({
        type: "run-end",
        runId: "run-7",
        result: mixedResult,
        message: null,
      });
      expect(readFileSync(file, "utf8")).toBe(
        renderJUnitReport({ result: mixedResult, suiteName: "ci" }),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("shows bidi controls and control characters escaped, and stays XML 1.0", () => {
    const xml = renderJUnitReport({ result: spoofingResult() });
    expect(rawHiddenCharacters(xml)).toEqual([]);
    const [testCase] = all(parseXml(xml), "testcase");
    expect(testCase?.attributes.name).toMatch(
      /^invoice<U\+202E>txt\.exe<U\+0000><U\+2066>x<U\+2069> › /,
    );
  });
});
