// The dashboard as a user meets it: `verdict view` (the real command, an ephemeral port) over a
// seeded SQLite store, driven in Debian's Chromium: the journey from the runs list to a case
// and a comparison, filters, paging, grouping and trends. Every test also checks that nothing
// left 127.0.0.1 and nothing broke the CSP or threw.

import { describe, expect, it } from "vitest";
import { openGuardedPage, waitForPage } from "../fixtures/dashboard-browser.ts";
import { SHOWCASE, seedShowcase } from "../fixtures/dashboard-showcase.ts";
import { expectNoIncidents, useBrowserDashboard } from "./dashboard-session.ts";

const BROWSER_TIMEOUT_MS = 60_000;

const dashboard = useBrowserDashboard(seedShowcase);

const openPage = () => openGuardedPage(dashboard.browser, dashboard.view.base);

const LATEST = `/runs/${SHOWCASE.latest}`;

describe("verdict view in Chromium", () => {
  it(
    "list → filter → open a run → sort by a metric → open a failing case → its verdicts → compare → back",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/`);
      await waitForPage(page);
      const groups = page.locator("section.run-group h2");
      await expect.poll(() => groups.allTextContents()).toContain("rag-pipeline");

      // Filter: the search box narrows the list to one identifier, in the URL too.
      await page.getByRole("searchbox", { name: "Search" }).fill("support");
      await expect.poll(() => groups.allTextContents()).toEqual(["support-bot"]);
      expect(new URL(page.url()).searchParams.get("q")).toBe("support");

      // Open the latest run: its header, totals and the case table.
      await page.getByRole("link", { name: SHOWCASE.latest.slice(0, 8) }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(LATEST);
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("support-bot");
      expect(await page.locator(".verdict").first().textContent()).toContain(
        "2 of 24 test cases failed (1 with an error).",
      );

      // Sort by Answer Relevancy, lowest first: the regressed case comes first.
      const relevancyHeader = page.locator("th", { hasText: "Answer Relevancy" });
      await relevancyHeader.getByRole("button").click();
      await expect.poll(() => relevancyHeader.getAttribute("aria-sort")).toBe("ascending");
      const firstRow = page.locator("table.case-table tbody tr.case-row").first();
      await expect
        .poll(() => firstRow.locator("a.case-link").textContent())
        .toBe(SHOWCASE.regressedCase);
      expect(await firstRow.textContent()).toContain("0.35");
      expect(new URL(page.url()).searchParams.get("sort")).toBe("metric:Answer Relevancy");

      // Open it: the verdict table gives each statement's verdict and reason.
      await firstRow.locator("a.case-link").click();
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe(SHOWCASE.regressedCase);
      const verdicts = page
        .locator("table.step-table", { hasText: "Statements and Verdicts" })
        .first();
      const rows = await verdicts
        .locator("tbody tr")
        .evaluateAll((elements) =>
          elements.map((row) => [...row.children].map((cell) => cell.textContent)),
        );
      expect(rows[0]).toEqual([
        "1",
        "Orders usually ship within two days.",
        "no",
        "It is about shipping times, not the question asked.",
      ]);
      expect(await page.locator(".metric-fail .metric-score").first().textContent()).toContain(
        "score 0.35 < threshold 0.70",
      );

      // Back: the run page, still sorted.
      await page.goBack();
      await waitForPage(page);
      await expect.poll(() => relevancyHeader.getAttribute("aria-sort")).toBe("ascending");

      // Compare with the night before (the picker's default): the changed verdict, both reasons.
      await page.getByRole("button", { name: "Compare" }).click();
      await expect
        .poll(() => new URL(page.url()).searchParams.get("baseline"))
        .toBe(SHOWCASE.previous);
      const change = page.locator("li.change", { hasText: SHOWCASE.regressedCase });
      await expect.poll(() => change.count()).toBe(1);
      const sides = await change.locator(".change-side").allTextContents();
      expect(sides[0]).toContain("passed");
      expect(sides[0]).toContain("addresses the question directly");
      expect(sides[1]).toContain("failed");
      expect(sides[1]).toContain("talks about shipping times instead of the refund");
      const relevancyRow = page.locator(".compare-table tbody tr", { hasText: "Answer Relevancy" });
      expect(await relevancyRow.textContent()).toContain("▼ worse");

      // Back again: the comparison is gone, the run stays.
      await page.goBack();
      await expect.poll(() => change.count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe(LATEST);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "filters runs by status and by date",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/?status=interrupted`);
      await waitForPage(page);
      const groups = page.locator("section.run-group h2");
      await expect.poll(() => groups.allTextContents()).toEqual(["live", "crashed"]);
      await page.getByRole("button", { name: "Clear filters" }).click();
      await page.getByLabel("From").fill("2025-03-08");
      await page.getByLabel("To").fill("2025-03-09");
      await expect
        .poll(() => page.locator("a.run-link").allTextContents())
        .toEqual(["5b0c7e28", "5b0c7e27"]);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "pages through 230 cases, filters failing ones, searches reasons and groups by file",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/runs/${SHOWCASE.full}`);
      await waitForPage(page);
      const pager = page.getByRole("navigation", { name: "Cases pages" });
      const rows = page.locator("table.case-table tbody tr.case-row");
      await expect
        .poll(() => pager.locator("p").textContent())
        .toBe("Cases 1–100 of 230 · page 1 of 3");
      expect(await rows.count()).toBe(100);
      await pager.getByRole("button", { name: "Next →" }).click();
      await expect
        .poll(() => pager.locator("p").textContent())
        .toBe("Cases 101–200 of 230 · page 2 of 3");
      expect(await rows.first().locator("td").first().textContent()).toBe("101");
      expect(new URL(page.url()).searchParams.get("page")).toBe("2");

      // Failing only (page 1 again): every row is a failure or an error.
      await page.getByRole("radio", { name: "Failing" }).check();
      await expect.poll(() => new URL(page.url()).searchParams.get("filter")).toBe("failing");
      await waitForPage(page);
      const statuses = await rows.locator(".badge").allTextContents();
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === "✗ FAIL" || status === "! ERROR")).toBe(true);

      // Search in the reasons: the judge's word for a rude answer.
      await page.getByRole("radio", { name: "All" }).check();
      await page.getByRole("searchbox", { name: "Search" }).fill("talks down");
      await expect
        .poll(() => page.locator(".cases .result-count").textContent())
        .toMatch(/^\d+ of 230 test cases match$/);
      const found = await rows.count();
      expect(found).toBeGreaterThan(0);
      expect(found).toBeLessThan(230);

      // Group by file: a header row per file, with its size.
      await page.getByRole("searchbox", { name: "Search" }).fill("");
      await page.getByLabel("Group by").selectOption("file");
      const groupRows = page.locator("tr.group-row th");
      await expect
        .poll(() => groupRows.allTextContents())
        .toEqual([
          expect.stringMatching(/^evals\/billing\.eval\.ts \d+ cases$/),
          expect.stringMatching(/^evals\/support\.eval\.ts \d+ cases$/),
        ]);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "draws an identifier's trends; clicking a point opens its run",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/?identifier=${SHOWCASE.identifier}`);
      await waitForPage(page);
      const charts = page.locator("figure.chart");
      await expect
        .poll(() => charts.locator("figcaption").allTextContents())
        .toEqual([
          "Answer Relevancy: mean score and pass rate",
          "Toxicity: mean score and pass rate",
          "Bias: mean score and pass rate",
          "Cost per run",
        ]);
      // The newest run is the last point, at the right edge of the plot.
      const over = charts.first().locator(".u-over");
      const box = await over.boundingBox();
      if (box === null) throw new Error("The chart has no plot area.");
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
      await page.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
      await expect.poll(() => new URL(page.url()).pathname).toBe(LATEST);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
