// Hostile text in every field the dashboard shows — identifiers, run ids, case names, inputs,
// outputs, context, tags, files, custom metric names, judge models, reasons, errors, steps,
// judge calls, image sources, span trees, trials, flaky cases, comparisons, calibrations (their
// ids, metric names, data sources, judges, rows, labels, reasons, errors) — must show as text: in
// Chromium, on every page, 0 script executions (no dialog, no `window.__pwned`), 0 requests
// leaving 127.0.0.1, 0 CSP violations.

import { describe, expect, it } from "vitest";
import { reportContent } from "../../src/evaluate/build-test-result.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import type { TestResult } from "../../src/results/evaluation-result.ts";
import type { MetricData } from "../../src/results/metric-data.ts";
import { image } from "../../src/test-case/image.ts";
import { openGuardedPage, waitForPage } from "../fixtures/dashboard-browser.ts";
import { storeCalibration } from "../fixtures/dashboard-calibrations.ts";
import { receiptPng, saveRun } from "../fixtures/dashboard-showcase.ts";
import { metricData, testResult } from "../fixtures/results.ts";
import {
  ATTRIBUTE_PAYLOAD,
  SCRIPT_PAYLOAD,
  XSS_PAYLOADS,
  XSS_TEXT,
} from "../fixtures/xss-payloads.ts";
import { expectNoIncidents, useBrowserDashboard } from "./dashboard-session.ts";

const BROWSER_TIMEOUT_MS = 90_000;
const IDENTIFIER = `suite ${XSS_TEXT}`;
const BASELINE = "baseline-<img src=x onerror=window.__pwned=6>";
const CANDIDATE = `candidate-${ATTRIBUTE_PAYLOAD}`;
const METRIC = `Custom ${SCRIPT_PAYLOAD}`;
const CALIBRATION = `calibration-<svg onload=window.__pwned=9>`;
const CALIBRATION_RUN = `calibration-run-${ATTRIBUTE_PAYLOAD}`;

function hostileMetric(name: string, score: number, success: boolean): MetricData {
  const items = [...XSS_PAYLOADS];
  return metricData({
    name,
    score,
    success,
    threshold: 0.5,
    lowerIsBetter: false,
    reason: `reason ${XSS_TEXT}`,
    evaluationModel: `model ${XSS_TEXT}`,
    verboseLogs: `logs ${XSS_TEXT}`,
    steps: [
      { label: `Claims ${SCRIPT_PAYLOAD}`, value: items },
      {
        label: "Verdicts",
        value: items.map((item) => ({ verdict: item, reason: `because ${item}` })),
      },
      { label: `Notes ${SCRIPT_PAYLOAD}`, value: { note: XSS_TEXT } },
    ],
    calls: [
      {
        step: `step ${XSS_TEXT}`,
        model: `model ${XSS_TEXT}`,
        inputTokens: 10,
        outputTokens: 2,
        costUsd: 0.0001,
        latencyMs: 5,
        source: "judge",
      },
    ],
  });
}

function hostileCase(index: number, score: number): TestResult {
  const input = reportContent({
    field: "input",
    content: [
      `input ${XSS_TEXT} `,
      image("https://attacker.example/remote.png"),
      image(receiptPng()),
      image(`photos/${ATTRIBUTE_PAYLOAD}.png`),
    ],
  });
  const success = score >= 0.5;
  const metrics = [
    hostileMetric(METRIC, score, success),
    metricData({
      name: `Errored ${SCRIPT_PAYLOAD}`,
      score: null,
      success: false,
      reason: null,
      error: `error ${XSS_TEXT}`,
    }),
  ];
  return testResult({
    name: `case ${index} ${XSS_TEXT}`,
    index,
    input: input.text,
    images: [
      ...input.images,
      // A stored image whose label is a script URL: never a link, never loaded.
      {
        field: "actualOutput",
        number: 4,
        start: 0,
        end: 1,
        kind: "url",
        label: "javascript:window.__pwned=8",
      },
    ],
    actualOutput: `output ${XSS_TEXT}`,
    expectedOutput: `expected ${XSS_TEXT}`,
    context: [...XSS_PAYLOADS],
    retrievalContext: [`retrieved ${XSS_TEXT}`],
    file: `evals/${SCRIPT_PAYLOAD}.eval.ts`,
    tags: [...XSS_PAYLOADS],
    metricsData: metrics,
    trials: [0, 1].map((trial) => ({ trial, success, metricsData: metrics })),
    passedTrials: success ? 2 : 0,
    durationMs: 10,
    trace: {
      name: `trace ${XSS_TEXT}`,
      status: "ok",
      error: null,
      input: { question: XSS_TEXT },
      output: XSS_TEXT,
      startedAt: "2025-03-01T08:00:00.000Z",
      durationMs: 5,
      metadata: { note: XSS_TEXT },
      testCase: null,
      metricsData: [hostileMetric(`Trace ${SCRIPT_PAYLOAD}`, 0.9, true)],
      spans: [
        {
          name: `span ${XSS_TEXT}`,
          type: `type ${SCRIPT_PAYLOAD}`,
          status: "errored",
          error: `span error ${XSS_TEXT}`,
          input: [XSS_TEXT],
          output: { [SCRIPT_PAYLOAD]: XSS_TEXT },
          startedAt: "2025-03-01T08:00:00.001Z",
          durationMs: 1,
          metadata: null,
          testCase: null,
          metricsData: [hostileMetric(`Span ${SCRIPT_PAYLOAD}`, 0.2, false)],
          children: [],
        },
      ],
    },
  });
}

const dashboard = useBrowserDashboard(async (store) => {
  await saveRun(
    store,
    { id: BASELINE, identifier: IDENTIFIER, startedAt: "2025-03-01T09:00:00.000Z" },
    [hostileCase(0, 0.9), hostileCase(1, 0.2)],
  );
  await saveRun(
    store,
    { id: CANDIDATE, identifier: IDENTIFIER, startedAt: "2025-03-02T09:00:00.000Z" },
    [hostileCase(0, 0.1), hostileCase(1, 0.8)],
  );
  // Hostile text in every field of a calibration: rows whose label, id, input, output and
  // reason are the corpus, a metric named with a script, a data file and judge named likewise,
  // and a row the judge failed on with a hostile error.
  await storeCalibration(store, {
    id: CALIBRATION,
    runId: CALIBRATION_RUN,
    identifier: IDENTIFIER,
    startedAt: "2025-03-03T09:00:00.000Z",
    metric: new ToxicityMetric(),
    metricName: `Calibrated ${SCRIPT_PAYLOAD}`,
    judge: `judge ${XSS_TEXT}`,
    source: `labels/${SCRIPT_PAYLOAD}.jsonl`,
    rows: [
      ...XSS_PAYLOADS.map((payload, index) => ({
        id: `row ${payload}`,
        input: `input ${XSS_TEXT}`,
        output: `output ${payload}`,
        label: index % 2 === 0 ? "1" : `0 ${payload}`,
        score: index % 2 === 0 ? 0.1 : 0.9,
        reason: `reason ${XSS_TEXT}`,
      })),
      { id: "fine", input: "ok", output: "ok", label: "0", score: 0 },
      { id: "rude", input: "ok", output: "rude", label: "1", score: 1 },
      {
        id: `failed ${SCRIPT_PAYLOAD}`,
        input: "x",
        output: "y",
        label: "1",
        score: null,
        error: `error ${XSS_TEXT}`,
      },
    ],
  });
});

const run = (id: string, query = "") => `/runs/${encodeURIComponent(id)}${query}`;
const q = (value: string) => encodeURIComponent(value);

describe("the XSS corpus in every field", () => {
  it(
    "runs no script and loads nothing from elsewhere, on any page",
    async () => {
      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
      );
      const pages = [
        "/",
        `/?q=${q("<script>")}`,
        `/?identifier=${q(IDENTIFIER)}`,
        run(CANDIDATE),
        run(CANDIDATE, `?baseline=${q(BASELINE)}`),
        run(CANDIDATE, `?group=tag&q=${q("<img")}`),
        run(CANDIDATE, `?group=file&sort=${q(`metric:${METRIC}`)}&dir=desc`),
        run(CANDIDATE, "?filter=failing"),
        `${run(CANDIDATE)}/cases/0`,
        `${run(CANDIDATE)}/cases/1`,
        `/compare?run=${q(CANDIDATE)}&baseline=${q(BASELINE)}`,
        "/calibrations",
        `/calibrations?run=${q(CALIBRATION_RUN)}`,
        `/calibrations/${q(CALIBRATION)}`,
        run(CALIBRATION_RUN),
        `${run(CALIBRATION_RUN)}/cases/0`,
      ];
      const shown: Record<string, boolean> = {};
      for (const target of pages) {
        await page.goto(`${dashboard.view.base}${target}`);
        await waitForPage(page);
        // Open every folded part, so that its text is rendered too.
        await page.evaluate(() => {
          for (const details of document.querySelectorAll("details")) details.open = true;
        });
        await page.mouse.move(200, 200);
        await page.waitForTimeout(100);
        shown[target] = (await page.locator("main").innerText()).includes(SCRIPT_PAYLOAD);
      }
      // The payloads are there, as text, on every page.
      expect(shown).toEqual(Object.fromEntries(pages.map((target) => [target, true])));
      // A script link never becomes a link; the remote image is a link, not an <img>.
      expect(await page.locator("a[href^='javascript:']").count()).toBe(0);
      await page.goto(`${dashboard.view.base}${run(CANDIDATE)}/cases/0`);
      await waitForPage(page);
      const imageHosts = await page
        .locator("img")
        .evaluateAll((images) =>
          images.map((element) => new URL((element as HTMLImageElement).src).host),
        );
      expect(imageHosts.length).toBeGreaterThan(0);
      expect(new Set(imageHosts)).toEqual(new Set([new URL(dashboard.view.base).host]));
      expect(
        await page.getByRole("link", { name: "Open the remote image" }).getAttribute("href"),
      ).toBe("https://attacker.example/remote.png");
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
