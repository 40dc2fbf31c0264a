/**
 * Client-side routing with the History API. The server answers every page path with the app's
 * index.html; the app reads the path and query here, so every view has a link that can be
 * shared or reloaded:
 *
 * | path                              | page                                        |
 * |-----------------------------------|---------------------------------------------|
 * | `/`                               | runs (filters in the query), trends         |
 * | `/runs/:run`                      | a run (`?baseline=B` adds the comparison)   |
 * | `/runs/:run/cases/:key`           | a case                                      |
 * | `/compare?run=A&baseline=B`       | two runs compared                           |
 * | `/calibrations` (`?run=R`)        | calibrations (of one run)                   |
 * | `/calibrations/:id`               | a calibration                               |
 */

import { useEffect, useState } from "preact/hooks";

/** The runs page's `identifier` value for runs that have none. */
export const NO_IDENTIFIER = "(none)";

export type Route =
  | { page: "runs"; query: URLSearchParams }
  | { page: "run"; runId: string; query: URLSearchParams }
  | { page: "case"; runId: string; caseKey: string }
  | { page: "compare"; runId: string | null; baselineId: string | null }
  | { page: "calibrations"; runId: string | null }
  | { page: "calibration"; calibrationId: string }
  | { page: "not-found"; path: string };

/** The route of a path and query string (as `location.pathname` and `location.search`). */
export function parseRoute(pathname: string, search: string): Route {
  const query = new URLSearchParams(search);
  const segments = pathname.split("/").filter((segment) => segment !== "");
  let decoded: string[];
  try {
    decoded = segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return { page: "not-found", path: pathname };
  }
  const [first, runId, third, caseKey] = decoded;
  if (decoded.length === 0) return { page: "runs", query };
  if (first === "runs" && runId !== undefined && decoded.length === 2) {
    return { page: "run", runId, query };
  }
  if (first === "runs" && runId !== undefined && third === "cases" && caseKey !== undefined) {
    if (decoded.length === 4) return { page: "case", runId, caseKey };
  }
  if (first === "compare" && decoded.length === 1) {
    return { page: "compare", runId: query.get("run"), baselineId: query.get("baseline") };
  }
  if (first === "calibrations" && decoded.length === 1) {
    return { page: "calibrations", runId: query.get("run") || null };
  }
  if (first === "calibrations" && runId !== undefined && decoded.length === 2) {
    return { page: "calibration", calibrationId: runId };
  }
  return { page: "not-found", path: pathname };
}

function withQuery(path: string, query: Record<string, string | null | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  const text = search.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** `/runs/<run>`, with optional query values. */
export function runPath(runId: string, query?: Record<string, string | null | undefined>): string {
  return withQuery(`/runs/${encodeURIComponent(runId)}`, query);
}

/** `/runs/<run>/cases/<key>`. */
export function casePath(runId: string, caseKey: string): string {
  return `/runs/${encodeURIComponent(runId)}/cases/${encodeURIComponent(caseKey)}`;
}

/** `/compare?run=A&baseline=B`. */
export function comparePath(runId: string, baselineId: string | null): string {
  return withQuery("/compare", { run: runId, baseline: baselineId });
}

/** `/calibrations`, or `/calibrations?run=R` for one run's. */
export function calibrationsPath(runId: string | null = null): string {
  return withQuery("/calibrations", { run: runId });
}

/** `/calibrations/<id>`. */
export function calibrationPath(calibrationId: string): string {
  return `/calibrations/${encodeURIComponent(calibrationId)}`;
}

/** `/` with the runs page's filters. */
export function runsPath(query: Record<string, string | null | undefined> = {}): string {
  return withQuery("/", query);
}

const NAVIGATE_EVENT = "verdict-navigate";

/**
 * Goes to `url` inside the app: a new history entry, or (`replace`) the current one changed,
 * as filters do, so that Back leaves the page rather than undoing each keystroke.
 */
export function navigate(url: string, options: { replace?: boolean } = {}): void {
  const current = `${window.location.pathname}${window.location.search}`;
  if (url === current) return;
  if (options.replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

/** The current path and query, updated on navigation and on Back / Forward. */
export function useLocation(): { pathname: string; search: string } {
  const read = () => ({ pathname: window.location.pathname, search: window.location.search });
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    window.addEventListener("popstate", update);
    window.addEventListener(NAVIGATE_EVENT, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(NAVIGATE_EVENT, update);
    };
  }, []);
  return location;
}

/** Replaces query values of the current page (filters, sort, paging), keeping the others. */
export function updateQuery(changes: Record<string, string | null>): void {
  const search = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === "") search.delete(name);
    else search.set(name, value);
  }
  const text = search.toString();
  navigate(text === "" ? window.location.pathname : `${window.location.pathname}?${text}`, {
    replace: true,
  });
}

/** The page number in the URL (`?page=3`) as an offset; a bad value is page 1. */
export function offsetOfPage(page: string | null, limit: number): number {
  const number = Number.parseInt(page ?? "1", 10);
  return Number.isFinite(number) && number > 1 ? (number - 1) * limit : 0;
}

/** The URL's `page` value of an offset (`null` for the first page, which needs none). */
export function pageOfOffset(offset: number, limit: number): string | null {
  const page = Math.floor(offset / limit) + 1;
  return page === 1 ? null : String(page);
}
