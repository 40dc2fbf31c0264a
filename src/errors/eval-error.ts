import { redactSecrets, redactSecretText } from "../secrets/redact-secrets.ts";
import { cleanErrorCause, markCleanCause } from "./clean-error-cause.ts";

/** Stable machine-readable codes carried by every verdict error. */
export type EvalErrorCode =
  | "MISSING_TEST_CASE_PARAMS"
  | "INVALID_TEST_CASE"
  | "JUDGE_OUTPUT"
  | "JUDGE_CALL"
  | "CONFIG"
  | "STORE"
  | "CACHE_MISS"
  | "ABORTED"
  | "BUDGET_EXHAUSTED"
  | "FINE_TUNING";

/** Options shared by every verdict error. */
export interface EvalErrorOptions {
  /**
   * The underlying error, if any. It is kept cleaned: its name, message, status, code and
   * stack with secrets masked, never the original object (see `cleanErrorCause`).
   */
  cause?: unknown;
}

/**
 * Base class of every error verdict raises. `code` is stable across versions, so programs
 * can branch on it; `message` says what failed, where, and what to do.
 *
 * Safe to print: secrets (configured key values and key patterns) are masked in the
 * message, and `cause` is a cleaned copy of the original error, so `console.error(error)`,
 * `util.inspect(error)` and `JSON.stringify(error)` never show a key a provider echoed.
 * Subclasses mask the text fields they add (`JudgeOutputError.rawText`).
 */
export class EvalError extends Error {
  readonly code: EvalErrorCode;

  constructor(code: EvalErrorCode, message: string, options: EvalErrorOptions = {}) {
    super(
      redactSecretText(message),
      options.cause === undefined ? undefined : { cause: cleanErrorCause(options.cause) },
    );
    this.code = code;
    this.name = new.target.name;
    markCleanCause(this);
  }

  /**
   * What `JSON.stringify(error)` writes: name, code, message and the fields of the subclass,
   * secrets masked (the message is not an own field of an `Error`, so it would be lost).
   */
  toJSON(): Record<string, unknown> {
    const fields: Record<string, unknown> = Object.fromEntries(Object.entries(this));
    return redactSecrets({ ...fields, name: this.name, code: this.code, message: this.message });
  }
}
