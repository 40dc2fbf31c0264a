// The text on the dashboard's pages (issue 23): a changed case's two outputs and their word
// diff on the compare page, a judge call's prompt and raw answer on the case page, outputs in
// the case table, the judge model and the fake judge in the runs list, fake runs out of
// trends. The real `verdict view` over the showcase store, in Debian's Chromium.

import { describe, expect, it } from "vitest";
import { openGuardedPage, waitForPage } from "../fixtures/dashboard-browser.ts";
import { SHOWCASE, seedShowcase } from "../fixtures/dashboard-showcase.ts";
import { expectNoIncidents, useBrowserDashboard } from "./dashboard-session.ts";

const BROWSER_TIMEOUT_MS = 60_000;
const REGRESSED_OUTPUT = "Orders usually ship within two days. Tracking links are sent by email.";
const EARLIER_OUTPUT =
  "Sorry about that! Here is how: open Settings and follow the steps. Our team answers within a day.";

const dashboard = useBrowserDashboard(seedShowcase);
const openPage = () => openGuardedPage(dashboard.browser, dashboard.view.base);

describe("the text on the dashboard's pages", () => {
  it(
    "compare: a changed case's two outputs side by side, the changed words marked, both reasons",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(
        `${dashboard.view.base}/compare?run=${SHOWCASE.latest}&baseline=${SHOWCASE.previous}`,
      );
      await waitForPage(page);
      const change = page.locator("li.change", { hasText: SHOWCASE.regressedCase });
      await expect.poll(() => change.count()).toBe(1);
      const [baseline, candidate] = await change.locator(".change-side").all();
      if (baseline === undefined || candidate === undefined) throw new Error("no sides");
      // Each side shows its own output whole…
      expect(await baseline.locator("pre.change-output").textContent()).toBe(EARLIER_OUTPUT);
      expect(await candidate.locator("pre.change-output").textContent()).toBe(REGRESSED_OUTPUT);
      // …the words only the baseline had struck through, those only this run has underlined.
      const removed = await baseline.locator("del.diff-removed").allTextContents();
      const added = await candidate.locator("ins.diff-added").allTextContents();
      // The full stops both sentences end with are shared, so each sentence is one change.
      expect(removed).toEqual([
        "Sorry about that! Here is how: open Settings and follow the steps",
        "Our team answers within a day",
      ]);
      expect(added).toEqual([
        "Orders usually ship within two days",
        "Tracking links are sent by email",
      ]);
      expect(await baseline.locator("ins").count()).toBe(0);
      expect(await candidate.locator("del").count()).toBe(0);
      expect(await candidate.textContent()).toContain(
        "talks about shipping times instead of the refund",
      );
      expect(await baseline.textContent()).toContain("addresses the question directly");
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "case page: each judge call's prompt and raw answer, collapsed until opened",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/runs/${SHOWCASE.latest}/cases/0`);
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe(SHOWCASE.regressedCase);
      const relevancy = page.locator("article.metric", { hasText: "Answer Relevancy" }).first();
      const texts = relevancy.locator("details.judge-call-text");
      await expect.poll(() => texts.count()).toBe(3);
      const first = texts.first();
      // Collapsed: the prompt is there to open, not shown.
      expect(await first.getAttribute("open")).toBeNull();
      const prompt = first.locator("pre.text").first();
      expect(await prompt.isVisible()).toBe(false);
      await first.locator("summary").click();
      await expect.poll(() => prompt.isVisible()).toBe(true);
      expect(await prompt.textContent()).toContain(JSON.stringify(REGRESSED_OUTPUT));
      const answer = first.locator("pre.text").nth(1);
      expect(JSON.parse((await answer.textContent()) ?? "null")).toEqual({
        statements: ["Orders usually ship within two days.", "Tracking links are sent by email."],
      });
      expect(await first.textContent()).toMatch(/SHA-256 [0-9a-f]{12}/);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "case table: each case's output beside its input, whole on Show all",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/runs/${SHOWCASE.latest}`);
      await waitForPage(page);
      const headers = page.locator("table.case-table thead th");
      await expect.poll(() => headers.allTextContents()).toContain("Output");
      expect(await headers.allTextContents()).toContain("Expected output");
      const row = page.locator("tr.case-row", { hasText: SHOWCASE.regressedCase }).first();
      const output = row.locator("td.case-output");
      expect(await output.locator(".cell-text-body").textContent()).toBe(REGRESSED_OUTPUT);
      expect(await row.locator("td.case-expected").textContent()).toContain(
        "A short answer that points to the right page.",
      );
      const other = page.locator("tr.case-row", { hasText: "reset my password" }).first();
      const toggle = other.locator("td.case-output button.cell-text-toggle");
      await toggle.click();
      await expect.poll(() => toggle.getAttribute("aria-expanded")).toBe("true");
      expect(await other.locator("td.case-output .cell-text-body").textContent()).toBe(
        "Sorry about that! Here is how: open Settings and follow the steps. Our team answers within a day.",
      );
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "runs list: the judge model of each run, the fake judge's run labelled; trends without it unless asked",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/?identifier=${SHOWCASE.identifier}`);
      await waitForPage(page);
      const latest = page.locator("table.runs-table tbody tr", {
        hasText: SHOWCASE.latest.slice(0, 8),
      });
      await expect
        .poll(() => latest.locator("td.run-judges").textContent())
        .toBe("openai:gpt-4.1-mini");
      expect(await latest.locator("td.case-counts").innerText()).toBe(
        "22 passed, 1 failed, 1 errored\nof 24 cases",
      );
      const fake = page.locator("table.runs-table tbody tr", {
        hasText: SHOWCASE.fake.slice(0, 8),
      });
      expect(await fake.locator("td.run-judges").textContent()).toBe(
        "fakefake judge: scores not real",
      );
      // Trends: 8 real runs drawn, the fake one left out and said so.
      const points = page.locator(".trend-table tbody tr");
      await expect.poll(() => points.count()).toBe(8);
      expect(await page.locator(".trends .section-note").textContent()).toContain(
        "1 run of the fake judge left out.",
      );
      await page.getByLabel("Include 1 fake-judge run (scores not real)").check();
      await expect.poll(() => points.count()).toBe(9);
      expect(new URL(page.url()).searchParams.get("fake")).toBe("1");
      // Oldest first: nights 1 to 3, then the fake run of the third night's afternoon.
      expect(await points.nth(3).textContent()).toContain("fake judge: scores not real");
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
