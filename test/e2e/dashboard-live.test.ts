// The dashboard while runs happen: a run in progress gains cases while its page is open (this
// test writes them into the store, as a running evaluate() would), and `verdict view --token`
// serves the app to a browser that opened the URL with the token.

import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { openGuardedPage, startViewCommand, waitForPage } from "../fixtures/dashboard-browser.ts";
import {
  ownerOfThisProcess,
  SHOWCASE,
  seedShowcase,
  supportBotResults,
} from "../fixtures/dashboard-showcase.ts";
import { evaluationSummary } from "../fixtures/results.ts";
import { expectNoIncidents, useBrowserDashboard } from "./dashboard-session.ts";

const BROWSER_TIMEOUT_MS = 60_000;
const LIVE_RUN = "0a1b2c3d-live-4000-8000-000000000001";
const TOKEN = "dashboard-test-token-0123456789";
const WATCH_SESSION = "watch-20250301-120000-beef";
const WATCH_FIRST = "0a1b2c3d-watch-4000-8000-000000000001";
const WATCH_SECOND = "0a1b2c3d-watch-4000-8000-000000000002";

const dashboard = useBrowserDashboard(seedShowcase);

describe("a run in progress", () => {
  it(
    "shows its progress and spend, and gains rows as its cases are saved",
    async () => {
      const results = supportBotResults(7, 6);
      await dashboard.store.runs.startRun({
        id: LIVE_RUN,
        identifier: "live-demo",
        status: "running",
        startedAt: new Date().toISOString(),
        endedAt: null,
        config: { testCases: results.length },
        summary: null,
        owner: ownerOfThisProcess(hostname()),
      });
      const save = async (index: number) => {
        const result = results[index];
        if (result === undefined) throw new Error(`No result ${index}.`);
        await dashboard.store.runs.saveTestResult(LIVE_RUN, { fingerprint: `f-${index}`, result });
      };
      await save(0);
      await save(1);

      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
      );
      await page.goto(`${dashboard.view.base}/runs/${LIVE_RUN}`);
      await waitForPage(page);
      const live = page.locator("section.live");
      const rows = page.locator("table.case-table tbody tr.case-row");
      await expect.poll(() => live.locator("h2").textContent()).toBe("Live");
      await expect
        .poll(() => live.locator(".live-figures").textContent())
        .toMatch(/^2 cases finished \(/);
      expect(await rows.count()).toBe(2);
      expect(await page.locator(".run-header-side .badge").textContent()).toBe("● run in progress");

      // Three more cases finish while the page is open.
      for (const index of [2, 3, 4]) {
        await save(index);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(5);
      await expect
        .poll(() => live.locator(".live-figures").textContent())
        .toMatch(
          /^5 cases finished \(.*\$0\.\d{4} spent.* · 3 new cases since you opened this page$/,
        );
      expect(await page.locator(".cards .card-value").first().textContent()).toMatch(/^\d+ \/ 6$/);

      // The run ends: the page says so, with the final status.
      await save(5);
      await dashboard.store.runs.finishRun({
        runId: LIVE_RUN,
        status: "completed",
        endedAt: new Date().toISOString(),
        summary: evaluationSummary({
          testCases: { total: 6, passed: 6, failed: 0, unscored: 0 },
          durationMs: 1000,
        }),
      });
      await expect
        .poll(() => live.locator("h2").textContent(), { timeout: 10_000 })
        .toBe("Run finished");
      await expect
        .poll(() => page.locator(".run-header-side .badge").textContent())
        .toBe("run finished");
      await expect.poll(() => rows.count()).toBe(6);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});

describe("a run of a verdict test run --watch session", () => {
  it(
    "waits on its page once it ends, then follows the session's next run",
    async () => {
      const results = supportBotResults(3, 3);
      const start = async (id: string) => {
        await dashboard.store.runs.startRun({
          id,
          identifier: WATCH_SESSION,
          status: "running",
          startedAt: new Date().toISOString(),
          endedAt: null,
          config: { runner: "vitest", command: "verdict test run", watch: true },
          summary: null,
          owner: ownerOfThisProcess(hostname()),
        });
        for (const result of results) {
          await dashboard.store.runs.saveTestResult(id, {
            fingerprint: `f-${result.index}`,
            result,
          });
        }
      };
      const finish = (id: string) =>
        dashboard.store.runs.finishRun({
          runId: id,
          status: "completed",
          endedAt: new Date().toISOString(),
          summary: evaluationSummary({
            testCases: { total: 3, passed: 3, failed: 0, unscored: 0 },
            durationMs: 1000,
          }),
        });
      await start(WATCH_FIRST);
      await finish(WATCH_FIRST);

      // The page is opened between two runs of the session: it waits for the next one.
      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
      );
      await page.goto(`${dashboard.view.base}/runs/${WATCH_FIRST}`);
      await waitForPage(page);
      const live = page.locator("section.live");
      await expect
        .poll(() => live.locator("h2").textContent(), { timeout: 10_000 })
        .toBe("Run finished · watching for changes");
      expect(await live.locator(".section-note").textContent()).toContain(
        "its next run (on the next save of an eval file) opens here",
      );

      // A save re-runs the session: the page becomes the new run's, live.
      await start(WATCH_SECOND);
      await expect
        .poll(() => new URL(page.url()).pathname, { timeout: 10_000 })
        .toBe(`/runs/${WATCH_SECOND}`);
      await expect.poll(() => live.locator("h2").textContent(), { timeout: 10_000 }).toBe("Live");
      expect(await page.locator(".run-header-side .badge").textContent()).toBe("● run in progress");
      await finish(WATCH_SECOND);
      await expect
        .poll(() => live.locator("h2").textContent(), { timeout: 10_000 })
        .toBe("Run finished · watching for changes");
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});

describe("verdict view --token", () => {
  it(
    "keeps the token of the first URL in memory, sends it on every request, and drops it from the address bar",
    async () => {
      const secured = await startViewCommand({ home: dashboard.home, args: ["--token", TOKEN] });
      try {
        const refused = await fetch(`${secured.base}/api/runs`);
        expect(refused.status).toBe(401);

        const { page, incidents, close } = await openGuardedPage(dashboard.browser, secured.base);
        const authorizations: string[] = [];
        page.on("request", (request) => {
          if (new URL(request.url()).pathname.startsWith("/api/")) {
            authorizations.push(request.headers().authorization ?? "none");
          }
        });
        await page.goto(`${secured.base}/?token=${TOKEN}`);
        await waitForPage(page);
        expect(new URL(page.url()).search).toBe("");
        await page.getByRole("link", { name: SHOWCASE.latest.slice(0, 8) }).click();
        await waitForPage(page);
        await expect.poll(() => page.locator("h1").textContent()).toBe("support-bot");
        expect(authorizations.length).toBeGreaterThan(2);
        expect(new Set(authorizations)).toEqual(new Set([`Bearer ${TOKEN}`]));
        // Export links carry no token: the HttpOnly cookie set by the first request
        // authenticates downloads, so a copied link or a download's address gives nothing away.
        const exportHref = await page.getByRole("link", { name: "JSON" }).getAttribute("href");
        expect(exportHref).not.toMatch(/token/i);
        const hrefs = await page
          .locator("a[href], img[src]")
          .evaluateAll((elements) =>
            elements.map((element) => element.getAttribute("href") ?? element.getAttribute("src")),
          );
        expect(hrefs.filter((href) => href?.includes(TOKEN))).toEqual([]);
        expect((await page.request.get(`${secured.base}${exportHref}`)).status()).toBe(200);
        expect((await fetch(`${secured.base}${exportHref}`)).status).toBe(401);
        await expectNoIncidents(page, incidents);
        await close();
      } finally {
        await secured.stop();
      }
    },
    BROWSER_TIMEOUT_MS,
  );
});
