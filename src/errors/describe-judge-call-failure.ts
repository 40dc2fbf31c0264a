/**
 * What kind of failure a judge call met: a rate limit or an exhausted quota (HTTP 429), a
 * rejected key (401/403), an unknown model (404), a provider failure (408, 409, 5xx), any
 * other rejected request (4xx), an answer that came (HTTP 2xx) but was cut short or is not
 * the provider's JSON, or, with no HTTP status, a timeout, a dropped connection, an abort,
 * or something else.
 */
export type JudgeCallFailureKind =
  | "rate-limit"
  | "quota"
  | "auth"
  | "not-found"
  | "server"
  | "bad-request"
  | "unreadable-response"
  | "timeout"
  | "network"
  | "aborted"
  | "unknown";

/** The facts of a failed judge call that its message is written from. */
export interface JudgeCallFailure {
  kind: JudgeCallFailureKind;
  /** HTTP status, or `null` when no response came. */
  status: number | null;
  /** Whether trying again later can succeed. */
  retryable: boolean;
  /** How long the provider asked us to wait (Retry-After), when it said. */
  retryAfterMs: number | null;
  /** The provider's error code, e.g. `"insufficient_quota"`; `null` without an HTTP status. */
  providerCode: string | null;
  /** What the provider (or the runtime) said, as it said it. */
  providerMessage: string;
  /**
   * The code of a failed connection, e.g. `"ECONNRESET"`; of an `"unreadable-response"`, the
   * code of the connection that closed mid-answer (`"UND_ERR_SOCKET"`), `null` when the whole
   * body came and could not be read.
   */
  networkCode: string | null;
  /** The URL that was called, when the error names it. */
  url: string | null;
}

/** Options of {@link describeJudgeCallFailure}. */
export interface DescribeJudgeCallFailureOptions {
  /** Name of the judge, e.g. `"openai:gpt-4.1"`. */
  judgeName: string;
  /**
   * The failure. Its `providerMessage` and `url` are quoted: mask secrets in them first
   * (`redactSecretText`), as this leaf module cannot.
   */
  failure: JudgeCallFailure;
  /** The variable that holds this judge's API key, named on 401/403; else a generic hint. */
  apiKeyVariable?: string | null | undefined;
  /** On an unknown model (404): a known model whose name is close, e.g. `"gpt-4.1"` for `"gtp-4.1"`. */
  similarModel?: string | null | undefined;
  /** For an attempt verdict itself timed out: the time limit it gave the judge. */
  timeoutMs?: number | undefined;
  /**
   * Whether that limit was what was left of the request's retry budget (`maxElapsedMs`)
   * rather than the attempt's own `timeoutMs`.
   * @default false
   */
  cutByBudget?: boolean | undefined;
}

const MAX_QUOTED_LENGTH = 300;

/**
 * The message of a failed judge call: what failed (with the HTTP status, or "no HTTP
 * status"), where (the judge, the URL), what the provider said, and what to do.
 * @example
 * describeJudgeCallFailure({ judgeName: "openai:gpt-4.1", failure, apiKeyVariable: "OPENAI_API_KEY" });
 * // 'Judge "openai:gpt-4.1": the API key was rejected (HTTP 401): …. Check OPENAI_API_KEY: …'
 */
export function describeJudgeCallFailure(options: DescribeJudgeCallFailureOptions): string {
  const { failure } = options;
  const judge = `Judge "${options.judgeName}"`;
  const quoted = shorten(failure.providerMessage);
  const said = quoted === "" ? "" : `: ${quoted}`;
  const where = failure.url === null ? "" : ` to ${failure.url}`;
  const status = failure.status;
  switch (failure.kind) {
    case "quota":
      return (
        `${judge}: the provider's quota or credit is exhausted (HTTP 429 insufficient_quota)${said}. ` +
        `Add credit or raise the spending limit on the provider's billing page ` +
        `(OpenAI: https://platform.openai.com/settings/organization/billing); no retry will help.`
      );
    case "rate-limit":
      return (
        `${judge} is rate limited (HTTP 429)${said}. If this persists, lower maxConcurrent or ` +
        `raise the rate limit of your account.`
      );
    case "auth": {
      const variable = options.apiKeyVariable;
      const check =
        variable === null || variable === undefined
          ? "Check the API key this judge uses"
          : `Check ${variable}: set it (in the environment or a .env file) to a valid key for this provider`;
      const what =
        status === 401
          ? "the API key was rejected (HTTP 401)"
          : `access was denied (HTTP ${status}); the key may lack access to this model or project`;
      return `${judge}: ${what}${said}. ${check}.`;
    }
    case "not-found": {
      const similar = options.similarModel;
      const guess = similar === null || similar === undefined ? "" : ` Did you mean "${similar}"?`;
      return (
        `${judge}: model not found (HTTP ${status})${said}.${guess} Check the model name ` +
        `(VERDICT_MODEL, \`verdict set-model\` or the metric's \`model\` option; for Azure, the ` +
        `deployment name) and that your account has access to it.`
      );
    }
    case "server":
      return (
        `${judge}: the provider failed to answer (HTTP ${status})${said}. This is usually ` +
        `temporary: try again later.`
      );
    case "bad-request":
      return (
        `${judge}: the provider rejected the request (HTTP ${status})${said}. Retrying will not ` +
        `help: check the model name and settings, or use another model.`
      );
    case "unreadable-response": {
      const from = failure.url === null ? "" : ` from ${failure.url}`;
      const answered = (then: string) => (status === null ? "" : `HTTP ${status}, ${then} `);
      return failure.networkCode === null
        ? `${judge}: the response could not be read (${answered("but")}the body is not the ` +
            `provider's JSON)${from}${said}. A proxy or gateway in front of the model usually ` +
            `sends such pages when it fails, so this is retried; if it persists, check the base ` +
            `URL (it must point at the API, e.g. …/v1) and any proxy in between, and for a ` +
            `server that only speaks Chat Completions use openai.chat(…) or ` +
            `"openai-compatible:<model>".`
        : `${judge}: the response was cut short (${answered("then")}the connection closed: ` +
            `${failure.networkCode})${from}${said}. This is usually a dropped connection or a ` +
            `proxy timing out mid-answer, so it is retried; if it persists, check the network, ` +
            `proxy and the server at the base URL.`;
    }
    case "timeout":
      return options.timeoutMs === undefined
        ? `${judge} timed out (no HTTP status)${where}${said}. If the judge is just slow, raise ` +
            `the retry timeoutMs.`
        : options.cutByBudget === true
          ? `${judge} timed out: no answer within the ${options.timeoutMs} ms left of the ` +
            `retry budget (no HTTP status).`
          : `${judge} timed out: no answer within ${options.timeoutMs} ms (no HTTP status). ` +
            `If the judge is just slow, raise the retry timeoutMs.`;
    case "network": {
      const code = failure.networkCode === null ? "" : `${failure.networkCode}, `;
      return (
        `${judge}: the connection failed (${code}no HTTP status)${where}${said}. Check the ` +
        `network, proxy and base URL (is the server running?).`
      );
    }
    case "aborted":
      return `${judge}: the call was aborted (no HTTP status)${said}.`;
    case "unknown":
      return (
        `${judge} failed (no HTTP status)${said}. This is not a known transient error, so it ` +
        `is not retried: see the cause for details.`
      );
  }
}

/** The message of a judge call cancelled by the run's signal (an `EvalError` `"ABORTED"`). */
export function describeCancelledJudgeCall(judgeName: string): string {
  return `Judge "${judgeName}": the call was cancelled (the run's signal aborted), so no answer was waited for.`;
}

/** Provider text on one line, without a trailing full stop, shortened to 300 characters. */
function shorten(text: string): string {
  const oneLine = text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.\s]+$/, "");
  return oneLine.length > MAX_QUOTED_LENGTH ? `${oneLine.slice(0, MAX_QUOTED_LENGTH)}…` : oneLine;
}

/** Options of {@link describeRetryBudgetExhausted}. */
export interface DescribeRetryBudgetExhaustedOptions {
  /** The message of the last failure. */
  lastMessage: string;
  /** Attempts made, all of them. */
  attempts: number;
  /** How many of them the provider answered with a wait (429/503 with Retry-After). */
  providerWaits: number;
  /** Time spent on attempts and waits so far. */
  elapsedMs: number;
  /**
   * The wait before the next attempt that was not waited, or `null` when the budget ran out
   * during the last attempt.
   */
  nextWaitMs: number | null;
  /**
   * With `nextWaitMs: null`: whether the last attempt was cut, unanswered, where the budget
   * ended (rather than failing on its own and leaving no time for another).
   * @default true
   */
  lastAttemptCut?: boolean | undefined;
  /**
   * Whether that wait is one the provider asked for (`Retry-After`, rate-limit reset) rather
   * than verdict's backoff.
   * @default true
   */
  providerAsked?: boolean | undefined;
  /** The retry policy's `maxElapsedMs`. */
  maxElapsedMs: number;
}

/**
 * The message of a judge call given up because the retry policy's `maxElapsedMs` ran out:
 * the provider's next wait, or the backoff before the next attempt, would leave no time for
 * it, or the last attempt was still unanswered when it ended. What happened, what to do,
 * then the last failure.
 */
export function describeRetryBudgetExhausted(options: DescribeRetryBudgetExhaustedOptions): string {
  const waits = options.providerWaits;
  const budget = `the retry budget (retry.maxElapsedMs = ${options.maxElapsedMs} ms)`;
  const told = `${waits} ${waits === 1 ? "time" : "times"} told to wait`;
  const spent =
    `Gave up after ${options.attempts} ${options.attempts === 1 ? "attempt" : "attempts"} in ` +
    `${formatWait(options.elapsedMs)}${waits === 0 ? "" : ` (${told})`}`;
  const last = `Last failure: ${options.lastMessage}`;
  if (options.nextWaitMs === null && options.lastAttemptCut === false) {
    return (
      `${spent}: the attempts used up ${budget}, leaving no time for another. Raise ` +
      `retry.maxElapsedMs to keep trying longer. ${last}`
    );
  }
  if (options.nextWaitMs === null) {
    return (
      `${spent}: ${budget} ran out while waiting for an answer. If the judge is just slow, ` +
      `raise retry.maxElapsedMs (and retry.timeoutMs); if it never answers, check the server ` +
      `at the judge's base URL. ${last}`
    );
  }
  if (options.providerAsked === false) {
    return (
      `${spent}: the next attempt, after a backoff of ${formatWait(options.nextWaitMs)}, could ` +
      `not finish within ${budget}. Raise retry.maxElapsedMs to keep trying longer. ${last}`
    );
  }
  return (
    `${spent}${waits === 0 ? ` (${told})` : ""}: the provider asks to wait ${formatWait(options.nextWaitMs)} more, past the retry budget ` +
    `(retry.maxElapsedMs = ${options.maxElapsedMs} ms). Raise retry.maxElapsedMs to wait ` +
    `longer, lower maxConcurrent (or set throttleMs) to send fewer requests at once, or check ` +
    `the rate limit of your plan with the provider. ${last}`
  );
}

/** A duration for a message: `850 ms`, `12.5 s`, `10 min`, `2 min 5 s`. */
function formatWait(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 59_950) return `${Math.round(ms / 100) / 10} s`;
  const seconds = Math.round(ms / 1000);
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest === 0 ? "" : ` ${rest} s`}`;
}
