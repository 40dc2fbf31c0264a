// The dashboard for every user: each page in light and dark mode has no serious or critical
// accessibility violation (axe) and is photographed into test/e2e/__screenshots__/dashboard/;
// the theme toggle is remembered; everything is reachable and usable from the keyboard.

import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  openGuardedPage,
  seriousAccessibilityViolations,
  waitForPage,
} from "../fixtures/dashboard-browser.ts";
import { DASHBOARD_RUNS } from "../fixtures/dashboard-runs.ts";
import { SHOWCASE, seedShowcase } from "../fixtures/dashboard-showcase.ts";
import { expectNoIncidents, useBrowserDashboard } from "./dashboard-session.ts";

const SCREENSHOTS = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "__screenshots__",
  "dashboard",
);
const BROWSER_TIMEOUT_MS = 90_000;

/** Every kind of page, with what identifies it once loaded. */
const PAGES = [
  { name: "runs", path: "/", heading: "Runs" },
  { name: "trends", path: `/?identifier=${SHOWCASE.identifier}`, heading: SHOWCASE.identifier },
  { name: "run", path: `/runs/${SHOWCASE.latest}`, heading: "support-bot" },
  { name: "run-flaky", path: `/runs/${SHOWCASE.repeat}`, heading: "tone-check" },
  {
    name: "run-compared",
    path: `/runs/${SHOWCASE.latest}?baseline=${SHOWCASE.previous}&filter=failing`,
    heading: "support-bot",
  },
  { name: "case", path: `/runs/${SHOWCASE.latest}/cases/0`, heading: SHOWCASE.regressedCase },
  { name: "case-images", path: `/runs/${SHOWCASE.rag}/cases/0`, heading: "receipt total" },
  { name: "case-rag", path: `/runs/${SHOWCASE.rag}/cases/3`, heading: "policy lookup 3" },
  {
    name: "case-spans",
    path: `/runs/${DASHBOARD_RUNS.components}/cases/0`,
    heading: "agent answers",
  },
  { name: "case-trials", path: `/runs/${DASHBOARD_RUNS.repeated}/cases/0`, heading: "flaky" },
  {
    name: "compare",
    path: `/compare?run=${SHOWCASE.latest}&baseline=${SHOWCASE.previous}`,
    heading: "Compare runs",
  },
  { name: "calibrations", path: "/calibrations", heading: "Calibrations" },
  {
    name: "calibration",
    path: `/calibrations/${SHOWCASE.calibration}`,
    heading: "Toxicity against human labels",
  },
] as const;

const dashboard = useBrowserDashboard(seedShowcase);

beforeAll(() => {
  mkdirSync(SCREENSHOTS, { recursive: true });
});

async function backgroundOf(page: Page): Promise<string> {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

describe.each(["light", "dark"] as const)("every page in %s mode", (colorScheme) => {
  it(
    "loads, has no serious accessibility violation, and is photographed",
    async () => {
      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
        {
          colorScheme,
        },
      );
      const violations: Record<string, string[]> = {};
      for (const entry of PAGES) {
        await page.goto(`${dashboard.view.base}${entry.path}`);
        await waitForPage(page);
        await expect.poll(() => page.locator("h1").textContent()).toBe(entry.heading);
        // Charts draw after their data: wait for them before the picture.
        if (entry.name === "trends") await page.locator(".u-over").first().waitFor();
        if (entry.name === "run-compared") await page.locator(".comparison").waitFor();
        if (entry.name === "case-images") {
          await page.waitForFunction(() =>
            [...document.images].every((image) => image.complete && image.naturalWidth > 0),
          );
        }
        // Only colours change with the scheme: dark mode is checked for contrast alone.
        violations[entry.name] = await seriousAccessibilityViolations(
          page,
          colorScheme === "dark" ? ["color-contrast"] : undefined,
        );
        await page.screenshot({
          path: path.join(SCREENSHOTS, `${entry.name}-${colorScheme}.png`),
          fullPage: true,
        });
      }
      expect(violations).toEqual(Object.fromEntries(PAGES.map((entry) => [entry.name, []])));
      expect(await backgroundOf(page)).toBe(
        colorScheme === "dark" ? "rgb(13, 17, 23)" : "rgb(246, 247, 249)",
      );
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});

describe("the theme", () => {
  it(
    "follows the system, and the toggle's choice is remembered over reloads",
    async () => {
      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
        {
          colorScheme: "dark",
        },
      );
      await page.goto(`${dashboard.view.base}/`);
      await waitForPage(page);
      const toggle = page.getByRole("button", { name: "Dark mode" });
      expect(await backgroundOf(page)).toBe("rgb(13, 17, 23)");
      expect(await toggle.getAttribute("aria-pressed")).toBe("true");

      await toggle.click();
      expect(await backgroundOf(page)).toBe("rgb(246, 247, 249)");
      expect(await toggle.getAttribute("aria-pressed")).toBe("false");
      await page.reload();
      await waitForPage(page);
      expect(await backgroundOf(page)).toBe("rgb(246, 247, 249)");
      expect(await page.evaluate(() => localStorage.getItem("verdict-view-theme"))).toBe("light");

      await toggle.click();
      await page.goto(`${dashboard.view.base}/runs/${SHOWCASE.latest}`);
      await waitForPage(page);
      expect(await backgroundOf(page)).toBe("rgb(13, 17, 23)");
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});

describe("the keyboard", () => {
  /**
   * Presses Tab until the focused element matches `selector` (and holds `text`, when given),
   * at most `limit` times.
   */
  async function tabTo(page: Page, selector: string, text?: string, limit = 60): Promise<void> {
    for (let step = 0; step < limit; step++) {
      await page.keyboard.press("Tab");
      const reached = await page.evaluate(
        ([css, words]) => {
          const focused = document.activeElement;
          if (!focused?.matches(css)) return false;
          return words === undefined || (focused.textContent ?? "").includes(words);
        },
        [selector, text] as const,
      );
      if (reached) return;
    }
    throw new Error(`${limit} Tabs never reached ${selector} ${text ?? ""}.`);
  }

  const focusRing = (page: Page) =>
    page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element);
      return `${style.outlineStyle} ${style.outlineWidth}`;
    });

  it(
    "skips to the content, / focuses search, and Tab and Enter go run → sort → case",
    async () => {
      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
      );
      await page.goto(`${dashboard.view.base}/`);
      await waitForPage(page);

      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
        "Skip to content",
      );
      expect(await focusRing(page)).toBe("solid 3px");

      await page.keyboard.press("/");
      expect(
        await page.evaluate(() => (document.activeElement as HTMLInputElement).placeholder),
      ).toBe("Run id or identifier");
      await page.keyboard.type("support-bot");
      await expect
        .poll(() => page.locator("section.run-group h2").allTextContents())
        .toEqual(["support-bot"]);

      // Every run is a link in the tab order, with a visible focus ring.
      await tabTo(page, "a.run-link");
      expect(await focusRing(page)).toBe("solid 3px");
      await page.keyboard.press("Enter");
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/runs/${SHOWCASE.latest}`);
      await waitForPage(page);
      // The new page has focus (its main region), not the link that is gone.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");

      await tabTo(page, "button.sort-button", "Toxicity");
      await page.keyboard.press("Enter");
      await expect
        .poll(() => page.locator("th", { hasText: "Toxicity" }).getAttribute("aria-sort"))
        .toBe("ascending");
      await page.keyboard.press("Enter");
      await expect
        .poll(() => page.locator("th", { hasText: "Toxicity" }).getAttribute("aria-sort"))
        .toBe("descending");

      // The rows are reachable: the first case link opens the case.
      await tabTo(page, "a.case-link");
      const name = await page.evaluate(() => document.activeElement?.textContent);
      await page.keyboard.press("Enter");
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe(name);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "reaches the calibrations from the header, a calibration from the list, and its case links",
    async () => {
      const { page, incidents, close } = await openGuardedPage(
        dashboard.browser,
        dashboard.view.base,
      );
      await page.goto(`${dashboard.view.base}/`);
      await waitForPage(page);
      await tabTo(page, ".app-header nav a", "Calibrations");
      expect(await focusRing(page)).toBe("solid 3px");
      await page.keyboard.press("Enter");
      await expect.poll(() => new URL(page.url()).pathname).toBe("/calibrations");
      await waitForPage(page);
      await tabTo(page, "a.calibration-link");
      expect(await focusRing(page)).toBe("solid 3px");
      await page.keyboard.press("Enter");
      await waitForPage(page);
      await expect
        .poll(() => page.locator("h1").textContent())
        .toBe("Toxicity against human labels");
      // A wrong row's case link is in the tab order, past the run link and the tables.
      await tabTo(page, "li.wrong-row a", "open the case in its run", 80);
      await page.keyboard.press("Enter");
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("reply-01");
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
