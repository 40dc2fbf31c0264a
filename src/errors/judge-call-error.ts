import { redactSecretText } from "../secrets/redact-secrets.ts";
import {
  type DescribeJudgeCallFailureOptions,
  type DescribeRetryBudgetExhaustedOptions,
  describeJudgeCallFailure,
  describeRetryBudgetExhausted,
} from "./describe-judge-call-failure.ts";
import { EvalError } from "./eval-error.ts";

/**
 * What a {@link JudgeCallError} means for a run:
 * - `"configuration"`: the key was rejected (HTTP 401/403) or the model does not exist (404,
 *   `model_not_found`). No request to that judge can succeed until the configuration is
 *   fixed, so a run stops at the first one (the CLI exits 2);
 * - `"quota"`: the account's quota or credit is exhausted (429 `insufficient_quota`). The run
 *   stops, keeping what finished (the CLI exits 3);
 * - `"transient"`: a rate limit, server error, timeout, dropped connection, or an answer that
 *   came (HTTP 2xx) but was cut short or is not the provider's JSON: retried;
 * - `"failure"`: anything else (a rejected request, an unknown error): this call failed.
 */
export type JudgeCallErrorKind = "configuration" | "quota" | "transient" | "failure";

/**
 * The {@link JudgeCallErrorKind} of a judge call error's fields: also readable from a copy
 * of the error that lost its class (one Vitest sent from a worker).
 * @example
 * judgeCallErrorKind({ status: 401, providerCode: "invalid_api_key", retryable: false }); // "configuration"
 */
export function judgeCallErrorKind(fields: {
  status?: unknown;
  providerCode?: unknown;
  retryable?: unknown;
}): JudgeCallErrorKind {
  if (fields.providerCode === "insufficient_quota") return "quota";
  const status = fields.status;
  if (status === 401 || status === 403 || status === 404) return "configuration";
  if (fields.providerCode === "model_not_found") return "configuration";
  return fields.retryable === true ? "transient" : "failure";
}

/** Options of {@link JudgeCallError}. */
export interface JudgeCallErrorOptions {
  message: string;
  /** HTTP status of the failed call, or `null` when no response came (network, timeout). */
  status: number | null;
  /** Whether trying again later can succeed (rate limit, server error, timeout). */
  retryable: boolean;
  /** The provider's error code when it gave one, e.g. `"insufficient_quota"`. */
  providerCode?: string | null;
  /** Milliseconds the provider asked us to wait (Retry-After or rate-limit reset), when it said. */
  retryAfterMs?: number | null;
  /**
   * What the judge threw. Kept cleaned (name, message, status, code and stack, secrets
   * masked), never the provider's error object with its request, headers and body.
   */
  cause?: unknown;
}

/**
 * A call to the judge model failed: the request did not produce an answer. Its `cause` is a
 * cleaned copy of what the provider threw (no headers, request or response bodies), so
 * printing the error never shows a key the provider echoed.
 */
export class JudgeCallError extends EvalError {
  readonly status: number | null;
  readonly retryable: boolean;
  readonly providerCode: string | null;
  readonly retryAfterMs: number | null;

  constructor(options: JudgeCallErrorOptions) {
    super("JUDGE_CALL", options.message, { cause: options.cause });
    this.status = options.status;
    this.retryable = options.retryable;
    this.providerCode =
      options.providerCode === undefined || options.providerCode === null
        ? null
        : redactSecretText(options.providerCode);
    this.retryAfterMs = options.retryAfterMs ?? null;
  }

  /**
   * The error of a classified failure, with a message that says what failed, where and
   * what to do (see {@link describeJudgeCallFailure}).
   * @example
   * throw JudgeCallError.fromFailure({ judgeName, failure, cause: caught });
   */
  static fromFailure(
    options: DescribeJudgeCallFailureOptions & { cause?: unknown },
  ): JudgeCallError {
    const { failure } = options;
    return new JudgeCallError({
      message: describeJudgeCallFailure(options),
      status: failure.status,
      retryable: failure.retryable,
      providerCode: failure.providerCode,
      retryAfterMs: failure.retryAfterMs,
      cause: options.cause,
    });
  }

  /** True when the account's quota or credit is exhausted: no retry will help today. */
  get quotaExhausted(): boolean {
    return this.providerCode === "insufficient_quota";
  }

  /**
   * What the failure means for a run (see {@link JudgeCallErrorKind}): `"configuration"` for
   * a rejected key (401/403) or an unknown model (404, `model_not_found`), which stops a run
   * at once.
   * @example
   * if (error instanceof JudgeCallError && error.kind === "configuration") process.exitCode = 2;
   */
  get kind(): JudgeCallErrorKind {
    return judgeCallErrorKind(this);
  }

  /** The same error, its message saying that retries gave up after `attempts` attempts. */
  afterAttempts(attempts: number): JudgeCallError {
    return this.withMessage(
      `${this.message} Gave up after ${attempts} ${attempts === 1 ? "attempt" : "attempts"}.`,
    );
  }

  /**
   * The same error, its message saying that the retry policy's `maxElapsedMs` ran out (the
   * next wait would leave no time for another attempt, or the last attempt was still
   * unanswered when it ended), and what to do (see {@link describeRetryBudgetExhausted}).
   */
  afterRetryBudget(
    options: Omit<DescribeRetryBudgetExhaustedOptions, "lastMessage">,
  ): JudgeCallError {
    return this.withMessage(
      describeRetryBudgetExhausted({ ...options, lastMessage: this.message }),
    );
  }

  private withMessage(message: string): JudgeCallError {
    return new JudgeCallError({
      message,
      status: this.status,
      retryable: this.retryable,
      providerCode: this.providerCode,
      retryAfterMs: this.retryAfterMs,
      cause: this.cause,
    });
  }
}
