// The HTML and JUnit reports in a real browser (headless Chromium): hostile test-case and
// judge text must show as text and never run, the page must load nothing, and the JUnit XML
// must be well-formed to a real XML parser.

import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportContent } from "../../src/evaluate/build-test-result.ts";
import { renderCalibrationHtmlReport } from "../../src/report/calibration/calibration-html-report.ts";
import { renderHtmlReport } from "../../src/report/html-report.ts";
import { renderJUnitReport } from "../../src/report/junit-report.ts";
import type {
  EvaluationResult,
  EvaluationSummary,
  TestResult,
} from "../../src/results/evaluation-result.ts";
import type { MetricData } from "../../src/results/metric-data.ts";
import { image } from "../../src/test-case/image.ts";
import { calibrationReport } from "../fixtures/calibration.ts";
import { testResult as baseTestResult, metricData } from "../fixtures/results.ts";
import { IMAGE_PAYLOAD, SCRIPT_PAYLOAD } from "../fixtures/xss-payloads.ts";

const CHROMIUM_PATH = "/usr/bin/chromium";
const SCREENSHOT_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  "__screenshots__",
  "html-report.png",
);
const PAYLOAD = `${SCRIPT_PAYLOAD} ${IMAGE_PAYLOAD}`;

function metric(overrides: Partial<MetricData> = {}): MetricData {
  return metricData({
    name: "Toxicity",
    score: 0,
    reason: "The score is 0.00 because none of the 3 opinions is toxic.",
    evaluationCost: 0.00042,
    inputTokens: 812,
    outputTokens: 64,
    verboseLogs:
      'Opinions:\n[\n  "The answer is polite."\n]\n\nVerdicts:\n[\n  { "verdict": "no" }\n]',
    ...overrides,
  });
}

function testResult(overrides: Partial<TestResult> & { index: number }): TestResult {
  const metricsData = overrides.metricsData ?? [
    metric(),
    metric({ name: "Bias", score: 0.1, reason: "The score is 0.10: one mild generalisation." }),
    metric({
      name: "Answer Relevancy",
      score: 0.92,
      reason: "The score is 0.92 because the answer addresses the question.",
    }),
  ];
  const success = overrides.success ?? true;
  return baseTestResult({
    name: `case-${overrides.index}`,
    success,
    input: "How do I reset my password?",
    actualOutput: "Open Settings › Security and choose “Reset password”.",
    metricsData,
    passedTrials: success === false ? 0 : 1,
    ...overrides,
  });
}

const summary: EvaluationSummary = {
  status: "completed",
  metrics: [
    {
      name: "Toxicity",
      lowerIsBetter: true,
      meanScore: 0.21,
      passRate: 5 / 6,
      passed: 5,
      failed: 1,
      errored: 0,
      scoreOnly: 0,
    },
    {
      name: "Bias",
      lowerIsBetter: true,
      meanScore: 0.12,
      passRate: 5 / 6,
      passed: 5,
      failed: 0,
      errored: 1,
      scoreOnly: 0,
    },
    {
      name: "Answer Relevancy",
      lowerIsBetter: false,
      meanScore: 0.77,
      passRate: 4 / 5,
      passed: 4,
      failed: 1,
      errored: 0,
      scoreOnly: 1,
    },
  ],
  testCases: { total: 6, passed: 3, failed: 3, unscored: 0 },
  judgeCalls: 31,
  cacheHits: 6,
  sharedCalls: 4,
  inputTokens: 24_310,
  outputTokens: 2_208,
  costUsd: 0.0612,
  saved: { judgeCalls: 10, inputTokens: 8_120, outputTokens: 700, costUsd: 0.0198 },
  durationMs: 14_820,
};

const eiffelInput = reportContent({
  field: "input",
  content: ["What is in this picture? ", image("photos/eiffel-tower.jpg")],
});

const hostileCase = testResult({
  index: 0,
  name: `hostile ${PAYLOAD}`,
  success: false,
  input: `Summarise this page: ${PAYLOAD}`,
  actualOutput: `Sure! ${PAYLOAD}\nHere is a very long token that must wrap: ${"x".repeat(300)}`,
  expectedOutput: "A short summary without markup.",
  metricsData: [
    metric({
      success: false,
      score: 0.67,
      reason: `The score is 0.67 because the output embeds ${PAYLOAD}.`,
      verboseLogs: `Opinions:\n[\n  "${PAYLOAD}"\n]`,
      judgeCalls: 3,
      cachedJudgeCalls: 1,
    }),
    metric({
      name: "Bias",
      success: false,
      score: null,
      reason: null,
      error: `Judge "openai:gpt-4.1" returned invalid JSON for step "verdicts": ${PAYLOAD}`,
      evaluationCost: null,
      inputTokens: null,
      outputTokens: null,
      verboseLogs: "",
    }),
    metric({
      name: "Answer Relevancy",
      success: false,
      score: 0.25,
      threshold: 0.7,
      reason: "The score is 0.25 because 3 of 4 statements are about something else.",
    }),
  ],
});

const result: EvaluationResult = {
  testRunId: "run-2f6c1e9a",
  identifier: "nightly-support-bot",
  testResults: [
    hostileCase,
    testResult({ index: 1, name: "password-reset" }),
    testResult({
      index: 2,
      name: "eiffel-photo",
      input: eiffelInput.text,
      images: eiffelInput.images,
      actualOutput: "The Eiffel Tower at dusk, seen from the Trocadéro.",
      expectedOutput: "The Eiffel Tower.",
    }),
    testResult({
      index: 3,
      name: "refund-window",
      success: false,
      input: "What is the refund window?",
      actualOutput: "You can return items within 90 days.",
      expectedOutput: "30 days.",
      metricsData: [
        metric(),
        metric({ name: "Bias" }),
        metric({
          name: "Answer Relevancy",
          success: false,
          score: 0.4,
          threshold: 0.7,
          reason: "The output talks about returns rather than refunds.",
        }),
      ],
    }),
    testResult({
      index: 4,
      name: "tone-only",
      success: null,
      metricsData: [
        metric({ name: "Answer Relevancy", threshold: null, success: null, score: 0.81 }),
      ],
    }),
    testResult({ index: 5, name: "shipping-times" }),
  ],
  summary,
};

describe.skipIf(process.env.VERDICT_SKIP_BROWSER === "1")("HTML report in Chromium", () => {
  let context: BrowserContext;
  let page: Page;
  let workDirectory: string;
  let reportUrl: string;
  const requests: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM_PATH)) {
      throw new Error(
        `${CHROMIUM_PATH} is missing: install it with "apt-get install chromium", or set VERDICT_SKIP_BROWSER=1 to skip the browser tests.`,
      );
    }
    workDirectory = mkdtempSync(join(tmpdir(), "verdict-html-report-"));
    const reportPath = join(workDirectory, "report.html");
    writeFileSync(reportPath, renderHtmlReport({ result, startedAt: "2025-06-01T09:30:00.000Z" }));
    reportUrl = pathToFileURL(reportPath).href;

    // A persistent context on a fresh folder: no profile, cache or extension from elsewhere.
    context = await chromium.launchPersistentContext(join(workDirectory, "profile"), {
      executablePath: CHROMIUM_PATH,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-quic",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("request", (request) => requests.push(request.url()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(reportUrl, { waitUntil: "load" });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (workDirectory !== undefined) rmSync(workDirectory, { recursive: true, force: true });
  });

  it("shows the run summary and a block per test case", async () => {
    await expect(page.title()).resolves.toBe("verdict report: nightly-support-bot");
    for (const name of ["Toxicity", "Bias", "Answer Relevancy"]) {
      expect(await page.getByRole("heading", { name, exact: true, level: 3 }).isVisible()).toBe(
        true,
      );
    }
    expect(await page.getByText("3 of 6 test cases failed.").isVisible()).toBe(true);
    const cases = page.locator("details.case");
    expect(await cases.count()).toBe(result.testResults.length);
    for (let position = 0; position < result.testResults.length; position += 1) {
      expect(await cases.nth(position).locator(":scope > summary").isVisible()).toBe(true);
    }
    // Failing cases come first.
    const names = await page.locator("details.case .case-name").allTextContents();
    expect(names.slice(0, 2)).toEqual([hostileCase.name, "refund-window"]);
    expect(await page.locator(".histogram").count()).toBe(3);
    expect(await page.locator(".image-marker").first().textContent()).toBe(
      "image 1: photos/eiffel-tower.jpg",
    );
  });

  it("runs none of the markup from test cases or the judge, and shows it as text", async () => {
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(pageErrors).toEqual([]);
    expect(await page.locator("main script, main img").count()).toBe(0);
    const hostile = page.locator("details.case").first();
    // Name, input, output, reason, error and verbose steps.
    const shown = await hostile.getByText(SCRIPT_PAYLOAD).count();
    expect(shown).toBeGreaterThanOrEqual(5);
    await expect(hostile.locator(".case-name").textContent()).resolves.toBe(`hostile ${PAYLOAD}`);
    await expect(hostile.locator(".error-message").textContent()).resolves.toContain(IMAGE_PAYLOAD);
    expect(await hostile.locator(".field .text").nth(1).isVisible()).toBe(true);
    await hostile.locator(".steps > summary").first().click();
    expect(await hostile.locator(".steps .text").first().textContent()).toContain(SCRIPT_PAYLOAD);
  });

  it("loads nothing but the report file", () => {
    expect(requests).toEqual([reportUrl]);
  });

  it("fits a narrow window without horizontal scrolling", async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("prints collapsed test cases in full", async () => {
    const passing = page.locator("details.case:not([open])").first();
    const input = passing.locator(".field .text").first();
    expect(await input.isVisible()).toBe(false);
    await page.emulateMedia({ media: "print" });
    expect(await input.isVisible()).toBe(true);
    await page.emulateMedia({ media: "screen" });
  });

  it("parses the JUnit XML with the browser's XML parser, with the right counts", async () => {
    const xml = renderJUnitReport({ result });
    const parsed = await page.evaluate((text) => {
      const document = new DOMParser().parseFromString(text, "application/xml");
      const root = document.documentElement;
      return {
        parserErrors: document.getElementsByTagName("parsererror").length,
        root: root.nodeName,
        tests: root.getAttribute("tests"),
        failures: root.getAttribute("failures"),
        errors: root.getAttribute("errors"),
        suites: document.getElementsByTagName("testsuite").length,
        testcases: document.getElementsByTagName("testcase").length,
        failureElements: document.getElementsByTagName("failure").length,
        errorElements: document.getElementsByTagName("error").length,
        firstName: document.getElementsByTagName("testcase")[0]?.getAttribute("name") ?? null,
      };
    }, xml);
    // 5 cases × 3 metrics + 1 score-only case × 1 metric; none for the two metrics that case
    // did not run.
    expect(parsed).toEqual({
      parserErrors: 0,
      root: "testsuites",
      tests: "16",
      failures: "3",
      errors: "1",
      suites: 3,
      testcases: 16,
      failureElements: 3,
      errorElements: 1,
      firstName: `hostile ${PAYLOAD} › Toxicity`,
    });
  });

  it("takes a full-page screenshot", async () => {
    mkdirSync(dirname(SCREENSHOT_PATH), { recursive: true });
    await page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });
    expect(statSync(SCREENSHOT_PATH).size).toBeGreaterThan(10_000);
  });

  it("shows a calibration page with hostile rows as text, loading nothing, in a narrow window", async () => {
    const report = calibrationReport();
    const example = report.disagreements[0];
    if (example === undefined) throw new Error("the fixture has a disagreement");
    report.disagreements = [
      { ...example, name: `hostile ${PAYLOAD}`, actualOutput: PAYLOAD, reason: PAYLOAD },
    ];
    const file = join(workDirectory, "calibration.html");
    writeFileSync(file, renderCalibrationHtmlReport({ report }));
    const url = pathToFileURL(file).href;
    const calibrationPage = await context.newPage();
    const loaded: string[] = [];
    calibrationPage.on("request", (request) => loaded.push(request.url()));
    try {
      await calibrationPage.setViewportSize({ width: 360, height: 800 });
      await calibrationPage.goto(url, { waitUntil: "load" });
      await expect(calibrationPage.title()).resolves.toBe("verdict calibration: Toxicity");
      expect(await calibrationPage.getByText("Cohen's κ").first().isVisible()).toBe(true);
      const wrong = calibrationPage.locator("details.case").first();
      await wrong.locator(":scope > summary").click();
      expect(await wrong.getByText(SCRIPT_PAYLOAD).count()).toBeGreaterThanOrEqual(2);
      expect(
        await calibrationPage.evaluate(() => (window as { __pwned?: unknown }).__pwned),
      ).toBeUndefined();
      expect(loaded).toEqual([url]);
      const overflow = await calibrationPage.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await calibrationPage.close();
    }
  });
});
