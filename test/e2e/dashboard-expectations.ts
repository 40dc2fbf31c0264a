// Assertions the dashboard's browser tests share.
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { type PageIncidents, pageIncidents } from "../fixtures/dashboard-browser.ts";

/** No dialog, no request off 127.0.0.1, no uncaught error, no CSP violation, no `__pwned`. */
export async function expectNoIncidents(page: Page, incidents: PageIncidents): Promise<void> {
  const seen = await pageIncidents(page, incidents);
  expect(seen).toEqual({ dialogs: [], outbound: [], errors: [], cspViolations: [], pwned: null });
}
