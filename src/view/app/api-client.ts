/**
 * How the app talks to `verdict view`'s JSON API (src/view/api.ts): every request is a GET to
 * the page's own origin, with `Authorization: Bearer <token>` when the server was started with
 * a token. The token comes from the first URL's `?token=`; it is kept in memory only and
 * removed from the address bar. The server answers that first request with an HttpOnly cookie,
 * which authenticates what the browser loads by itself (images, the event stream, downloads)
 * and a reload: no URL the page builds carries the token, so no link copied from the
 * dashboard, no download's address and no history entry gives it away.
 */

let token: string | null = null;

/** Reads `?token=` from the address bar (once, at start-up) and removes it from there. */
export function takeTokenFromLocation(): void {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get("token");
  if (fromUrl === null || fromUrl === "") return;
  token = fromUrl;
  url.searchParams.delete("token");
  window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
}

/** A query string's values: `undefined` and `null` are left out (`""` is sent: it can mean "none"). */
export type QueryValues = Record<string, string | number | null | undefined>;

/** `/api/…?a=1&b=2`, leaving out `null` and `undefined` values. */
export function apiPath(path: string, query: QueryValues = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    search.set(name, String(value));
  }
  const text = search.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** A failed API request: the server's `{ error }` message and the HTTP status. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

/** GETs a JSON API route; rejects with {@link ApiError} on a 4xx/5xx answer. */
export async function fetchJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(url, { headers, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(
      0,
      "The dashboard's server did not answer: is `verdict view` still running?",
    );
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`.trim();
    try {
      const body = (await response.json()) as { error?: unknown };
      if (typeof body.error === "string") message = body.error;
    } catch {
      // Not JSON: keep the status line.
    }
    if (response.status === 401 && token === null) {
      message = `${message} Open the address verdict view printed, with ?token= and the dashboard's token after it.`;
    }
    throw new ApiError(response.status, message);
  }
  return (await response.json()) as T;
}
