import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The cookie that carries the token after a request that had it (see api.ts). */
export const TOKEN_COOKIE = "verdict_view_token";

/** What a token must be: long enough not to be guessed, and safe in a URL and a cookie. */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,512}$/;

/** Why a token cannot be used, or `null` when it can. */
export function tokenProblem(token: string): string | null {
  return TOKEN_PATTERN.test(token)
    ? null
    : "a token takes at least 16 characters of letters, digits, '-', '_', '.' or '~' (e.g. the output of `openssl rand -hex 16`)";
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Whether two tokens are equal, in time that does not depend on where they differ. */
export function tokensMatch(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Where a request carried a token: the header, the query, the cookie; `null` when nowhere. */
export function presentedToken(
  request: IncomingMessage,
  query: URLSearchParams,
): { token: string; from: "header" | "query" | "cookie" } | null {
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer?.[1] !== undefined) return { token: bearer[1], from: "header" };
  const fromQuery = query.get("token");
  if (fromQuery !== null) return { token: fromQuery, from: "query" };
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) {
      try {
        return { token: decodeURIComponent(value.join("=")), from: "cookie" };
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** The cookie set after a request that carried the right token. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

/** A request target with its `token` and `login` parameters masked, for logs. */
export function maskTokenInTarget(target: string): string {
  return target.replace(/([?&](?:token|login)=)[^&#]*/gi, "$1***");
}

/** A fresh one-time login code (see `ViewServerOptions.loginCode`): 24 random bytes. */
export function createLoginCode(): string {
  return randomBytes(24).toString("base64url");
}

/** A login code good for one request (`?login=<code>`), compared in constant time. */
export class OneTimeLogin {
  #code: string | null;

  constructor(code: string | null) {
    this.#code = code;
  }

  /**
   * Where to send a request to `target` whose `query` carries the code — the same address
   * without it — using the code up; `null` when it does not carry it (or it is used).
   */
  take(target: string, query: URLSearchParams): string | null {
    const given = query.get("login");
    if (given === null || this.#code === null || !tokensMatch(given, this.#code)) return null;
    this.#code = null;
    query.delete("login");
    const rest = query.toString();
    return `${target.split("?")[0]}${rest === "" ? "" : `?${rest}`}`;
  }
}
