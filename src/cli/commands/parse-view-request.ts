/** The longest request target the dashboard reads; its own links are far shorter. */
export const MAX_VIEW_PATH_LENGTH = 2048;

/** What the dashboard serves: the run list, or one run by id. */
export type ViewRoute = { page: "runs" } | { page: "run"; runId: string };

/** A request the dashboard refuses, with the status and a short plain-text reason. */
export interface ViewRefusal {
  status: 400 | 404 | 405 | 421;
  reason: string;
}

/** A request the dashboard serves, or why it refuses it. */
export type ViewRequest =
  | { route: ViewRoute; refusal?: never }
  | { route?: never; refusal: ViewRefusal };

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

function refuse(status: ViewRefusal["status"], reason: string): ViewRequest {
  return { refusal: { status, reason } };
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
 * Reads one dashboard request, before anything touches the store: the `Host` check (421), the
 * method (405 for anything but GET and HEAD), then the path (400 for bad percent-encoding, NUL
 * and other control characters, `.`/`..` segments, encoded slashes, an overlong or non-path
 * target; 404 for an unknown route). The query string is ignored.
 */
export function parseViewRequest(options: {
  method: string | undefined;
  target: string | undefined;
  host: string | undefined;
  port: number;
}): ViewRequest {
  if (!isLoopbackHost(options.host, options.port)) {
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
  const rawPath = target.split(/[?#]/, 1)[0] as string;
  const segments: string[] = [];
  for (const raw of rawPath.slice(1).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return refuse(400, "The request path has malformed percent-encoding.");
    }
    if (hasForbiddenCharacter(segment)) {
      return refuse(400, "The request path holds a control character or an encoded slash.");
    }
    if (segment === "." || segment === "..") {
      return refuse(400, "The request path holds a . or .. segment.");
    }
    segments.push(segment);
  }
  if (segments.length === 1 && segments[0] === "") return { route: { page: "runs" } };
  if (segments.length === 2 && segments[0] === "runs" && segments[1] !== "") {
    return { route: { page: "run", runId: segments[1] as string } };
  }
  return refuse(404, "No such page.");
}
