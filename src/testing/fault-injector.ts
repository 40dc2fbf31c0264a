import { createHash } from "node:crypto";
import type { FakeReply } from "./fake-openai-replies.ts";
import type { FakeOpenAIRequest } from "./parse-fake-openai-request.ts";

/** How a 429 (or 503) injected by {@link FakeFaults} says how long to wait. */
export type FakeRateLimitHint =
  /** `retry-after-ms: <ms>` (OpenAI, Azure). */
  | "retry-after-ms"
  /** `retry-after: <seconds>`, with a fraction for waits under a second. */
  | "retry-after"
  /** OpenAI's `x-ratelimit-remaining-requests: 0` and `x-ratelimit-reset-requests: "20ms"`. */
  | "openai-reset"
  /** Anthropic's `anthropic-ratelimit-requests-remaining: 0` and `…-requests-reset` (RFC 3339). */
  | "anthropic-reset"
  /** No hint at all. */
  | "none";

/**
 * Seeded random faults for the fake server: each model call draws its fate from the seed, the
 * request (endpoint, model, prompt) and how many times that same request came before, so a
 * run gets the same faults whatever order concurrent requests arrive in, and a retry draws
 * afresh. Faults come before scripted replies and the responder: a faulted call consumes none.
 * @example
 * const server = await startFakeOpenAIServer({
 *   faults: { seed: 1, rateLimit: 0.3, retryAfterMs: 20, serverError: 0.05, drop: 0.02 },
 * });
 */
export interface FakeFaults {
  /** The seed: the same seed gives the same requests the same faults. */
  seed: number;
  /** Share of model calls, 0 to 1, answered 429 `rate_limit_exceeded`. @default 0 */
  rateLimit?: number;
  /** Share answered 503 with the same hint as the 429s. @default 0 */
  serviceUnavailable?: number;
  /** Share answered 500 `server_error`, with no hint. @default 0 */
  serverError?: number;
  /** Share whose connection is destroyed without an answer. @default 0 */
  drop?: number;
  /**
   * Share answered `200 OK` with headers that announce the whole answer, whose connection is
   * then destroyed before any of the body is sent (see `reply.cut()`). @default 0
   */
  cutAfterHeaders?: number;
  /**
   * Share answered `200 OK` with a body that is not JSON: a proxy's HTML error page (see
   * `reply.notJson()`). @default 0
   */
  notJson?: number;
  /** The wait the 429s and 503s ask for, in ms. @default 1000 */
  retryAfterMs?: number;
  /** How they say it. @default "retry-after-ms" */
  rateLimitHint?: FakeRateLimitHint;
}

/** Draws the fault, if any, of each model call; see {@link FakeFaults}. */
export interface FaultInjector {
  /** The fault to answer `request` with, or `undefined` to answer it normally. */
  draw(request: FakeOpenAIRequest): FakeReply | undefined;
  /** Forgets how many times each request was seen: the same draws start again. */
  reset(): void;
}

const HINTS: readonly FakeRateLimitHint[] = [
  "retry-after-ms",
  "retry-after",
  "openai-reset",
  "anthropic-reset",
  "none",
];
// New shares go last: a seed keeps drawing the same faults for the shares it already had.
const SHARES = [
  "rateLimit",
  "serviceUnavailable",
  "serverError",
  "drop",
  "cutAfterHeaders",
  "notJson",
] as const;

/**
 * Checks `faults` and makes its injector; throws a `RangeError` naming the option that is wrong.
 * @example
 * const injector = createFaultInjector({ seed: 7, rateLimit: 0.3 });
 * const fault = injector.draw(request); // a 429 for about 30% of calls
 */
export function createFaultInjector(faults: FakeFaults): FaultInjector {
  const checked = checkFaults(faults);
  const seen = new Map<string, number>();
  return {
    draw(request) {
      const key = `${request.endpoint}\u0000${request.model}\u0000${request.prompt}`;
      const occurrence = seen.get(key) ?? 0;
      seen.set(key, occurrence + 1);
      let point = uniform(`${checked.seed}\u0000${occurrence}\u0000${key}`);
      for (const share of SHARES) {
        point -= checked[share];
        if (point < 0) return faultReply({ kind: share, faults: checked });
      }
      return undefined;
    },
    reset() {
      seen.clear();
    },
  };
}

type CheckedFaults = Required<FakeFaults>;

function checkFaults(faults: FakeFaults): CheckedFaults {
  const problem = (message: string) => new RangeError(`startFakeOpenAIServer faults: ${message}`);
  if (typeof faults !== "object" || faults === null) {
    throw problem("pass an object such as { seed: 1, rateLimit: 0.3 }.");
  }
  if (!Number.isSafeInteger(faults.seed)) {
    throw problem(`seed must be a whole number, for repeatable faults; got ${faults.seed}.`);
  }
  const checked: CheckedFaults = {
    seed: faults.seed,
    rateLimit: 0,
    serviceUnavailable: 0,
    serverError: 0,
    drop: 0,
    cutAfterHeaders: 0,
    notJson: 0,
    retryAfterMs: faults.retryAfterMs ?? 1000,
    rateLimitHint: faults.rateLimitHint ?? "retry-after-ms",
  };
  let total = 0;
  for (const share of SHARES) {
    const value = faults[share] ?? 0;
    if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
      throw problem(`${share} must be a share of calls from 0 to 1 (0.3 for 30%); got ${value}.`);
    }
    checked[share] = value;
    total += value;
  }
  if (total > 1 + 1e-9) {
    throw problem(
      `the shares add up to ${total}, more than every call: keep ${SHARES.join(" + ")} at 1 ` +
        "or less.",
    );
  }
  if (!(Number.isFinite(checked.retryAfterMs) && checked.retryAfterMs >= 0)) {
    throw problem(`retryAfterMs must be 0 or more milliseconds; got ${faults.retryAfterMs}.`);
  }
  if (!HINTS.includes(checked.rateLimitHint)) {
    throw problem(
      `rateLimitHint must be one of ${HINTS.map((hint) => `"${hint}"`).join(", ")}; got ` +
        `${JSON.stringify(faults.rateLimitHint)}.`,
    );
  }
  return checked;
}

/** A number in [0, 1) from a string, the same every time. */
function uniform(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0) / 2 ** 32;
}

function faultReply(options: { kind: (typeof SHARES)[number]; faults: CheckedFaults }): FakeReply {
  const { faults } = options;
  switch (options.kind) {
    case "drop":
      return { kind: "drop" };
    case "cutAfterHeaders":
      return { kind: "cut", afterBytes: 0 };
    case "notJson":
      return { kind: "not-json" };
    case "serverError":
      return { kind: "error", status: 500 };
    case "serviceUnavailable":
      return {
        kind: "error",
        status: 503,
        type: "server_error",
        message: "The server is overloaded. Please try again later.",
        headers: hintHeaders(faults),
      };
    case "rateLimit":
      return {
        kind: "error",
        status: 429,
        type: "requests",
        code: "rate_limit_exceeded",
        message: `Rate limit reached for requests. Please try again in ${faults.retryAfterMs}ms.`,
        headers: hintHeaders(faults),
      };
  }
}

function hintHeaders(faults: CheckedFaults): Record<string, string> {
  const waitMs = faults.retryAfterMs;
  switch (faults.rateLimitHint) {
    case "retry-after-ms":
      return { "retry-after-ms": String(waitMs) };
    case "retry-after":
      return { "retry-after": String(waitMs / 1000) };
    case "openai-reset":
      return {
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": goDuration(waitMs),
        "x-ratelimit-remaining-tokens": "29000",
        "x-ratelimit-reset-tokens": "6m0s",
      };
    case "anthropic-reset":
      return {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": new Date(Date.now() + waitMs).toISOString(),
      };
    case "none":
      return {};
  }
}

/** A wait as OpenAI writes it: `"20ms"`, `"1.5s"`, `"6m0s"`. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = (ms - minutes * 60_000) / 1000;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}
