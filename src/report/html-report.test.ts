import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rawHiddenCharacters, spoofingResult } from "../../test/fixtures/hidden-characters.ts";
import {
  testResult as baseTestResult,
  evaluationSummary,
  metricData,
} from "../../test/fixtures/results.ts";
import { HTML_PAYLOAD as PAYLOAD } from "../../test/fixtures/xss-payloads.ts";
import { reportContent } from "../evaluate/build-test-result.ts";
import type {
  EvaluationResult,
  EvaluationSummary,
  TestResult,
} from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import { image } from "../test-case/image.ts";
import {
  createHtmlReporter,
  HTML_REPORT_CONTENT_SECURITY_POLICY,
  renderHtmlReport,
} from "./html-report.ts";

/** Every element the report itself writes; anything else came from the data. */
const REPORT_TAGS = new Set(
  (
    "html head meta title style body main header footer section article div p span strong " +
    "code time h1 h2 h3 h4 h5 dl dt dd ul li details summary pre svg g rect text line circle path"
  ).split(" "),
);

function metric(overrides: Partial<MetricData> = {}): MetricData {
  return metricData({
    name: "Toxicity",
    score: 0.05,
    reason: "None of the opinions is toxic.",
    evaluationCost: 0.0021,
    inputTokens: 1200,
    outputTokens: 80,
    verboseLogs: "Opinions:\n[]",
    cachedJudgeCalls: 1,
    ...overrides,
  });
}

function testResult(overrides: Partial<TestResult> & { index: number }): TestResult {
  return baseTestResult({
    name: `case-${overrides.index}`,
    success: true,
    metricsData: [metric()],
    passedTrials: 1,
    ...overrides,
  });
}

function summary(overrides: Partial<EvaluationSummary> = {}): EvaluationSummary {
  return evaluationSummary({
    status: "completed",
    metrics: [
      {
        name: "Toxicity",
        lowerIsBetter: true,
        meanScore: 0.35,
        passRate: 0.75,
        passed: 3,
        failed: 1,
        errored: 0,
        scoreOnly: 0,
      },
    ],
    testCases: { total: 4, passed: 3, failed: 1, unscored: 0 },
    judgeCalls: 1234,
    cacheHits: 5,
    sharedCalls: 2,
    inputTokens: 10_000,
    outputTokens: 900,
    costUsd: 0.0421,
    saved: { judgeCalls: 7, inputTokens: 3000, outputTokens: 200, costUsd: 0.005 },
    durationMs: 125_000,
    ...overrides,
  });
}

/** The input `Describe [image 1: photos/cat.png] please`, with its image. */
const catInput = reportContent({
  field: "input",
  content: ["Describe ", image("photos/cat.png"), " please"],
});

const result: EvaluationResult = {
  testRunId: "run-1",
  identifier: "nightly",
  testResults: [
    testResult({ index: 0, name: "greeting", metricsData: [metric({ score: 0.15 })] }),
    testResult({
      index: 1,
      name: "insult",
      success: false,
      input: catInput.text,
      images: catInput.images,
      metricsData: [metric({ success: false, score: 0.9, reason: "Very rude." })],
    }),
    testResult({ index: 2, name: "farewell", metricsData: [metric({ score: 0.15 })] }),
    testResult({ index: 3, name: "perfect", metricsData: [metric({ score: 1 })] }),
  ],
  summary: summary(),
};

function hostileResult(): EvaluationResult {
  const input = reportContent({
    field: "input",
    content: [`input ${PAYLOAD} `, image(`x" onmouseover="alert(1)`)],
  });
  const hostileMetric = metric({
    name: `Tox ${PAYLOAD}`,
    success: false,
    score: 0.9,
    reason: `reason ${PAYLOAD}`,
    evaluationModel: `model ${PAYLOAD}`,
    verboseLogs: `logs ${PAYLOAD}`,
  });
  const erroredMetric = metric({
    success: false,
    score: null,
    reason: null,
    error: `error ${PAYLOAD}`,
  });
  return {
    testRunId: `run ${PAYLOAD}`,
    identifier: `identifier ${PAYLOAD}`,
    testResults: [
      testResult({
        index: 0,
        name: `name ${PAYLOAD}`,
        success: false,
        input: input.text,
        images: input.images,
        actualOutput: `output ${PAYLOAD}`,
        expectedOutput: `expected ${PAYLOAD}`,
        metricsData: [hostileMetric, erroredMetric],
      }),
    ],
    summary: summary({
      status: "completed",
      metrics: [
        { ...summary().metrics[0], name: `Tox ${PAYLOAD}` } as EvaluationSummary["metrics"][0],
      ],
    }),
  };
}

/** The report of {@link result} with only `testResults`. */
function renderCases(...testResults: TestResult[]): string {
  return renderHtmlReport({ result: { ...result, testResults } });
}

function tagsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map((match) => match[1] ?? ""));
}

describe("renderHtmlReport", () => {
  it("escapes markup in every field, the title and attributes included", () => {
    const html = renderHtmlReport({ result: hostileResult(), title: `title ${PAYLOAD}` });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/\sonmouseover="/);
    expect([...tagsOf(html)].filter((tag) => !REPORT_TAGS.has(tag))).toEqual([]);
    const escaped =
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";
    for (const field of [
      "title",
      "run",
      "identifier",
      "name",
      "input",
      "output",
      "expected",
      "reason",
      "error",
      "model",
      "logs",
      "Tox",
    ]) {
      expect(html, field).toContain(`${field} ${escaped}`);
    }
    expect(html).toContain('title="x&quot; onmouseover=&quot;alert(1)"');
  });

  it("is self-contained: a strict CSP, no script, no external URL", () => {
    const html = renderHtmlReport({ result });
    expect(HTML_REPORT_CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
    );
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:; base-uri &#39;none&#39;; form-action &#39;none&#39;">`,
    );
    // The policy must come before anything it governs.
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"));
    expect(html).not.toContain("<link");
    expect(html).not.toContain("<script");
    expect(html).not.toMatch(/(src|href)="/);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/url\(/);
  });

  it("shows where an image was as a badge", () => {
    const html = renderHtmlReport({ result });
    expect(html).toMatch(
      /Describe <span class="image-marker" title="photos\/cat\.png"><svg [\s\S]*?<\/svg>image 1: photos\/cat\.png<\/span> please/,
    );
  });

  it("shows text that only reads like an image marker as typed, in a field without images", () => {
    const typed = "See [image 1: photos/dog.png] here";
    const html = renderCases(
      testResult({
        index: 0,
        input: catInput.text,
        images: catInput.images,
        actualOutput: typed,
        expectedOutput: typed,
      }),
    );
    expect(html).toContain(`<div class="text">${typed}</div>`);
    expect(html.match(/class="image-marker"/g)).toHaveLength(1);
    expect(html).toContain('title="photos/cat.png"');
    expect(html).not.toContain('title="photos/dog.png"');
  });

  it("shows control characters instead of passing them to the browser", () => {
    const withControls = {
      ...result,
      testResults: [testResult({ index: 0, actualOutput: "a\u0000b\u001bc\td" })],
    };
    expect(renderHtmlReport({ result: withControls })).toContain(
      "a&lt;U+0000&gt;b&lt;U+001B&gt;c\td",
    );
  });

  it("lists failing cases first and open, then the rest collapsed, in input order", () => {
    const html = renderHtmlReport({ result });
    const order = [
      ...html.matchAll(/<details class="case case-(\w+)" id="case-(\d+)"( open)?>/g),
    ].map((match) => `${match[2]}:${match[1]}${match[3] ?? ""}`);
    // Anchors are the cases' places in the run, counted from 1.
    expect(order).toEqual(["2:fail open", "1:pass", "3:pass", "4:pass"]);
    expect(html).toContain("Failing test cases (1)");
    expect(html).toContain("Passing and score-only test cases (3)");
  });

  it("renders the header, the totals and the per-metric summary", () => {
    const html = renderHtmlReport({
      result,
      startedAt: "2025-06-01T09:30:00.000Z",
      generatedAt: new Date("2025-06-01T09:32:05.000Z"),
    });
    expect(html).toContain("<title>verdict report: nightly</title>");
    expect(html).toContain(
      '<time datetime="2025-06-01T09:30:00.000Z">2025-06-01 09:30:00 UTC</time>',
    );
    expect(html).toContain('<time datetime="2025-06-01T09:32:05.000Z">');
    // The run's status says it went through every case, in words no one reads as a pass
    // beside the test verdict (issue 23: "COMPLETED" beside "✗ FAIL").
    expect(html).toContain(">run finished: every case ran</p>");
    expect(html).not.toContain("COMPLETED");
    expect(html).toContain("<strong>✗ FAIL</strong> 1 of 4 test cases failed.");
    for (const text of [
      '<p class="card-value">3 / 4</p>',
      '<p class="card-value">1,234</p>',
      "5 cache hits",
      '<p class="card-value">$0.0421</p>',
      '<p class="card-value">10,900</p>',
      '<p class="card-value">2m 05s</p>',
      '<p class="card-value">7 calls</p>',
      "<dt>Mean score</dt><dd>0.35</dd>",
      "<dt>Pass rate</dt><dd>75.0%</dd>",
      "<dt>Threshold</dt><dd>0.50</dd>",
      "3 passed</li>",
    ]) {
      expect(html).toContain(text);
    }
  });

  it("draws a 10-bin histogram of the scores from 0 to 1, with 0.9 and 1 in the last bin", () => {
    const html = renderHtmlReport({ result });
    expect(html.match(/class="histogram-bar"/g)).toHaveLength(10);
    const titles = [...html.matchAll(/<g><title>([^<]*)<\/title><rect/g)].map((match) => match[1]);
    expect(titles).toEqual([
      "0.0–0.1: 0 results",
      "0.1–0.2: 2 results",
      "0.2–0.3: 0 results",
      "0.3–0.4: 0 results",
      "0.4–0.5: 0 results",
      "0.5–0.6: 0 results",
      "0.6–0.7: 0 results",
      "0.7–0.8: 0 results",
      "0.8–0.9: 0 results",
      "0.9–1.0: 2 results",
    ]);
    expect(html).toContain("<title>threshold 0.5</title>");
  });

  it("shows each metric's status, score, threshold, judge, calls, cost and steps", () => {
    const html = renderHtmlReport({ result });
    expect(html).toContain('<span class="badge badge-fail">✗ FAIL</span><h5>Toxicity</h5>');
    expect(html).toContain("score <strong>0.90</strong> · threshold 0.50");
    expect(html).toContain('<p class="metric-reason">Very rude.</p>');
    expect(html).toContain("<dt>Judge</dt><dd>openai:gpt-4.1</dd>");
    expect(html).toContain("<dt>Judge calls</dt><dd>2 (1 cached)</dd>");
    expect(html).toContain("<dt>Cost</dt><dd>$0.0021</dd>");
    expect(html).toContain("<dt>Tokens</dt><dd>1,200 in · 80 out</dd>");
    expect(html).toContain(
      '<details class="steps"><summary>Verbose steps</summary><pre class="text">Opinions:\n[]</pre></details>',
    );
  });

  it("labels errors and score-only results in words, not only colours", () => {
    const html = renderCases(
      testResult({
        index: 0,
        success: false,
        metricsData: [metric({ success: false, score: null, error: "Judge timed out." })],
      }),
      testResult({
        index: 1,
        success: null,
        metricsData: [metric({ threshold: null, success: null })],
      }),
    );
    expect(html).toContain('<details class="case case-error" id="case-1" open>');
    expect(html).toContain('<span class="badge badge-error">! ERROR</span>');
    expect(html).toContain('<p class="error-message"><strong>Error:</strong> Judge timed out.</p>');
    expect(html).toContain('<span class="badge badge-score-only">• SCORE ONLY</span>');
    expect(html).toContain("threshold none");
  });

  it("shows every trial with repeat, failing trials open", () => {
    const trials = [
      { trial: 0, success: true, metricsData: [metric()] },
      { trial: 1, success: false, metricsData: [metric({ success: false, score: 0.7 })] },
    ];
    const html = renderCases(
      testResult({
        index: 0,
        success: false,
        metricsData: [metric()],
        trials,
        passedTrials: 1,
      }),
    );
    expect(html).toContain("#1 · 1/2 trials passed");
    expect(html).toMatch(
      /<details class="trial">\n<summary><span class="badge badge-pass">✓ PASS<\/span> Trial 1 of 2/,
    );
    expect(html).toMatch(
      /<details class="trial" open>\n<summary><span class="badge badge-fail">✗ FAIL<\/span> Trial 2 of 2/,
    );
    expect(html.match(/<article class="metric /g)).toHaveLength(2);
  });

  it("says when a run is incomplete or empty", () => {
    const interrupted = renderHtmlReport({
      result: {
        ...result,
        summary: summary({
          status: "interrupted",
          testCases: { total: 10, passed: 4, failed: 0, unscored: 6 },
        }),
      },
    });
    expect(interrupted).toContain(
      "<strong>! INCOMPLETE</strong> All 4 scored test cases passed. 6 left unscored (run interrupted).",
    );
    const empty = renderHtmlReport({
      result: {
        ...result,
        testResults: [],
        summary: summary({
          metrics: [],
          testCases: { total: 0, passed: 0, failed: 0, unscored: 0 },
        }),
      },
    });
    expect(empty).toContain("No test cases were evaluated.");
    expect(empty).toContain("No metric results.");
  });
});

describe("createHtmlReporter", () => {
  it("writes the page on run-end with the start time of run-start", () => {
    const folder = mkdtempSync(join(tmpdir(), "verdict-html-report-"));
    try {
      const file = join(folder, "out", "report.html");
      const reporter = createHtmlReporter({ file, title: "Support bot" });
      reporter.onEvent({
        type: "run-start",
        runId: "run-1",
        identifier: "nightly",
        totalTestCases: 4,
        resumedTestCases: 0,
        metricNames: ["Toxicity"],
        startedAt: "2025-06-01T09:30:00.000Z",
      });
      reporter.onEvent({ type: "run-end", runId: "run-1", result, message: null });
      const html = readFileSync(file, "utf8");
      expect(html).toContain("<title>Support bot</title>");
      expect(html).toContain('<time datetime="2025-06-01T09:30:00.000Z">');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("shows bidi controls and control characters escaped, identifiers included", () => {
    const html = renderHtmlReport({ result: spoofingResult() });
    expect(rawHiddenCharacters(html)).toEqual([]);
    expect(html).toContain("<code>runinvoice&lt;U+202E&gt;txt.exe&lt;U+0000&gt;");
    expect(html).toContain("<title>verdict report: nightlyinvoice&lt;U+202E&gt;txt.exe");
  });
});
