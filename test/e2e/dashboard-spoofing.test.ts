// Names that could spoof the dashboard's display — a right-to-left override and the other bidi
// controls, NUL and escape sequences in identifiers, case and metric names — show as visible
// <U+XXXX> escapes in Chromium, on the runs, run and case pages, and in the tab's title.

import { describe, expect, it } from "vitest";
import { openGuardedPage, waitForPage } from "../fixtures/dashboard-browser.ts";
import { saveRun } from "../fixtures/dashboard-showcase.ts";
import { BIDI_CONTROLS, rawHiddenCharacters } from "../fixtures/hidden-characters.ts";
import { metricData, testResult } from "../fixtures/results.ts";
import { expectNoIncidents, useBrowserDashboard } from "./dashboard-session.ts";

const BROWSER_TIMEOUT_MS = 60_000;
const RUN = "run-\u202etxt.exe";
const IDENTIFIER = `nightly${BIDI_CONTROLS.join("")}`;
const CASE = "refund\u202egnp.exe\u0000\u001b[2J";
const METRIC = "Polite\u2066ness\u2069\u200f";

const dashboard = useBrowserDashboard(async (store) => {
  await saveRun(store, { id: RUN, identifier: IDENTIFIER, startedAt: "2025-06-01T09:00:00.000Z" }, [
    testResult({
      index: 0,
      name: CASE,
      metricsData: [metricData({ name: METRIC, score: 0.2, success: true })],
    }),
  ]);
});

describe("names that could spoof the dashboard's display", () => {
  it(
    "show their bidi and control characters as <U+XXXX> on every page that names them",
    async () => {
      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
      );
      const pages = [
        "/",
        `/runs/${encodeURIComponent(RUN)}`,
        `/runs/${encodeURIComponent(RUN)}/cases/0`,
      ];
      for (const path of pages) {
        await page.goto(`${dashboard.view.base}${path}`);
        await waitForPage(page);
        const shown = `${await page.title()}\n${await page.locator("main").innerText()}`;
        const lines = shown.split("\n").filter((line) => rawHiddenCharacters(line).length > 0);
        expect(
          lines.map((line) => JSON.stringify(line)),
          path,
        ).toEqual([]);
      }
      expect(await page.locator("h1").innerText()).toBe("refund<U+202E>gnp.exe<U+0000><U+001B>[2J");
      await page.goto(`${dashboard.view.base}/runs/${encodeURIComponent(RUN)}`);
      await waitForPage(page);
      expect(await page.locator("main").innerText()).toContain("run-<U+202E>txt.exe");
      expect(await page.locator("main").innerText()).toContain(
        "Polite<U+2066>ness<U+2069><U+200F>",
      );
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
