// What the dashboard's browser test files share: one `verdict view` and one Chromium per file,
// over a store the file seeds, and the check that a page did nothing it must not.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  launchChromium,
  type PageIncidents,
  pageIncidents,
  startViewCommand,
  type ViewCommand,
} from "../fixtures/dashboard-browser.ts";

const SETUP_TIMEOUT_MS = 60_000;

/** A file's dashboard: read its fields inside tests (they are set in `beforeAll`). */
export interface BrowserDashboard {
  home: string;
  /** The test's own connection to the store (open until the file's tests end). */
  store: SqliteRunStore;
  view: ViewCommand;
  browser: Browser;
}

/**
 * Before the file's tests: a temporary VERDICT_HOME whose store `seed` fills, `verdict view`
 * over it and Chromium; after them, all closed and removed.
 */
export function useBrowserDashboard(
  seed: (store: SqliteRunStore) => Promise<void>,
): BrowserDashboard {
  const dashboard = {} as BrowserDashboard;
  beforeAll(async () => {
    dashboard.home = mkdtempSync(path.join(tmpdir(), "verdict-dashboard-browser-"));
    dashboard.store = new SqliteRunStore({ path: path.join(dashboard.home, "verdict.db") });
    await seed(dashboard.store);
    [dashboard.view, dashboard.browser] = await Promise.all([
      startViewCommand({ home: dashboard.home }),
      launchChromium(),
    ]);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await dashboard.browser?.close();
    await dashboard.view?.stop();
    await dashboard.store?.close();
    if (dashboard.home) rmSync(dashboard.home, { recursive: true, force: true });
  });
  return dashboard;
}

/** No dialog, no request off 127.0.0.1, no uncaught error, no CSP violation, no `__pwned`. */
export async function expectNoIncidents(page: Page, incidents: PageIncidents): Promise<void> {
  const seen = await pageIncidents(page, incidents);
  expect(seen).toEqual({ dialogs: [], outbound: [], errors: [], cspViolations: [], pwned: null });
}
