/** The longest request target the dashboard reads; its own links are far shorter. */
export const MAX_VIEW_PATH_LENGTH = 2048;

/** A JSON route of the dashboard's API (see api.ts). */
export type ApiRoute =
  | { api: "runs" }
  | { api: "identifiers" }
  | { api: "trends" }
  | { api: "compare" }
  | { api: "run"; runId: string }
  | { api: "cases"; runId: string }
  | { api: "case"; runId: string; caseKey: string }
  | { api: "image"; runId: string; caseKey: string; number: number }
  | { api: "events"; runId: string }
  | { api: "export"; runId: string }
  | { api: "calibrations" }
  | { api: "calibration"; calibrationId: string };

/**
 * What the dashboard serves: an API route; a page of the app (its index.html, which routes on
 * the client); or one of the app's built files (a path inside its folder).
 */
export type ViewRoute =
  | { kind: "api"; route: ApiRoute }
  | { kind: "page"; page: "runs" | "compare" | "calibrations" }
  | { kind: "page"; page: "run"; runId: string }
  | { kind: "page"; page: "calibration"; calibrationId: string }
  | { kind: "page"; page: "case"; runId: string; caseKey: string }
  | { kind: "file"; path: string[] };

/** Files at the app's top level that are served (the rest of the app is under `assets/`). */
const TOP_LEVEL_FILE = /^[\w-]+\.(svg|ico|png|webmanifest|txt)$/;

/** A request the dashboard refuses, with the status and a short plain-text reason. */
export interface ViewRefusal {
  status: 400 | 404 | 405 | 421;
  reason: string;
  /** Whether the request was for the API (answered as JSON). */
  api?: boolean;
}

/** A request the dashboard serves (with its query), or why it refuses it. */
export type ViewRequest =
  | { route: ViewRoute; query: URLSearchParams; refusal?: never }
  | { route?: never; query?: never; refusal: ViewRefusal };

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

// Control characters (NUL included), and separators that a decoded segment must not smuggle in.
function hasForbiddenCharacter(segment: string): boolean {
  for (let position = 0; position < segment.length; position++) {
    const code = segment.charCodeAt(position);
    if (code < 0x20 || code === 0x7f || segment[position] === "/" || segment[position] === "\\") {
      return true;
    }
  }
  return false;
}

function refuse(status: ViewRefusal["status"], reason: string, api = false): ViewRequest {
  return { refusal: { status, reason, ...(api ? { api } : {}) } };
}

/**
 * Whether a `Host` header names this server on the loopback interface: `127.0.0.1`,
 * `localhost` or `[::1]` with the port the request came in on (the port may be left out only on
 * port 80). Anything else — a DNS-rebinding page's own name, `127.0.0.1.nip.io`, `127.1`, a
 * trailing dot, another port — is refused, so a web page can never read the dashboard.
 */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const name = host.toLowerCase();
  return LOOPBACK_NAMES.some(
    (allowed) => name === `${allowed}:${port}` || (port === 80 && name === allowed),
  );
}

/**
 * Reads one dashboard request, before anything touches the store: the `Host` check (421;
 * skipped with `checkHost: false`, for a server that checks a token instead), the method (405
 * for anything but GET and HEAD), then the path (400 for bad percent-encoding, NUL and other
 * control characters, `.`/`..` segments, encoded slashes, an overlong or non-path target; 404
 * for an unknown route). The query string is returned, not checked.
 */
export function parseViewRequest(options: {
  method: string | undefined;
  target: string | undefined;
  host: string | undefined;
  port: number;
  /** @default true */
  checkHost?: boolean;
}): ViewRequest {
  if (options.checkHost !== false && !isLoopbackHost(options.host, options.port)) {
    return refuse(
      421,
      "This dashboard answers only to 127.0.0.1, localhost or [::1] with its port: open it by that address.",
    );
  }
  if (options.method !== "GET" && options.method !== "HEAD") {
    return refuse(405, "Only GET and HEAD are served.");
  }
  const target = options.target ?? "";
  if (target.length > MAX_VIEW_PATH_LENGTH) return refuse(400, "The request path is too long.");
  if (!target.startsWith("/")) return refuse(400, "The request target must be a path.");
  const [rawPath = "", ...rest] = target.split("#", 1)[0]?.split("?") ?? [];
  const api = rawPath === "/api" || rawPath.startsWith("/api/");
  const segments: string[] = [];
  for (const raw of rawPath.slice(1).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return refuse(400, "The request path has malformed percent-encoding.", api);
    }
    if (hasForbiddenCharacter(segment)) {
      return refuse(400, "The request path holds a control character or an encoded slash.", api);
    }
    if (segment === "." || segment === "..") {
      return refuse(400, "The request path holds a . or .. segment.", api);
    }
    segments.push(segment);
  }
  const query = new URLSearchParams(rest.join("?"));
  const route = api ? apiRoute(segments.slice(1)) : pageRoute(segments);
  if (route === null) {
    return api
      ? refuse(404, `No such API route: ${rawPath.slice(0, 100)} (see the routes in api.ts).`, true)
      : refuse(404, "No such page.");
  }
  return { route, query };
}

function pageRoute(segments: readonly string[]): ViewRoute | null {
  const [first, second, third, fourth] = segments;
  if (segments.some((segment) => segment === "")) {
    return segments.length === 1 ? { kind: "page", page: "runs" } : null;
  }
  if (first === "runs" && second !== undefined) {
    if (segments.length === 2) return { kind: "page", page: "run", runId: second };
    if (segments.length === 4 && third === "cases" && fourth !== undefined) {
      return { kind: "page", page: "case", runId: second, caseKey: fourth };
    }
    return null;
  }
  if (first === "compare" && segments.length === 1) return { kind: "page", page: "compare" };
  if (first === "calibrations") {
    if (segments.length === 1) return { kind: "page", page: "calibrations" };
    if (segments.length === 2 && second !== undefined) {
      return { kind: "page", page: "calibration", calibrationId: second };
    }
    return null;
  }
  if (first === "assets" && segments.length > 1) return { kind: "file", path: [...segments] };
  if (segments.length === 1 && first !== undefined && TOP_LEVEL_FILE.test(first)) {
    return { kind: "file", path: [first] };
  }
  return null;
}

function apiRoute(segments: readonly string[]): ViewRoute | null {
  if (segments.some((segment) => segment === "")) return null;
  const [first, runId, third, caseKey, fifth, sixth] = segments;
  const api = (route: ApiRoute): ViewRoute => ({ kind: "api", route });
  if (segments.length === 1) {
    if (
      first === "runs" ||
      first === "identifiers" ||
      first === "trends" ||
      first === "compare" ||
      first === "calibrations"
    ) {
      return api({ api: first });
    }
    return null;
  }
  if (first === "calibrations") {
    return segments.length === 2 && runId !== undefined
      ? api({ api: "calibration", calibrationId: runId })
      : null;
  }
  if (first !== "runs" || runId === undefined) return null;
  if (segments.length === 2) return api({ api: "run", runId });
  if (segments.length === 3) {
    if (third === "cases") return api({ api: "cases", runId });
    if (third === "events") return api({ api: "events", runId });
    if (third === "export") return api({ api: "export", runId });
    return null;
  }
  if (third !== "cases" || caseKey === undefined) return null;
  if (segments.length === 4) return api({ api: "case", runId, caseKey });
  if (segments.length === 6 && fifth === "images" && /^[1-9]\d{0,5}$/.test(sixth ?? "")) {
    return api({ api: "image", runId, caseKey, number: Number(sixth) });
  }
  return null;
}
