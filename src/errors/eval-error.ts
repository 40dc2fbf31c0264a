/** Stable machine-readable codes carried by every verdict error. */
export type EvalErrorCode =
  | "MISSING_TEST_CASE_PARAMS"
  | "INVALID_TEST_CASE"
  | "JUDGE_OUTPUT"
  | "JUDGE_CALL"
  | "CONFIG"
  | "STORE"
  | "CACHE_MISS"
  | "ABORTED";

/** Options shared by every verdict error. */
export interface EvalErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * Base class of every error verdict raises. `code` is stable across versions, so programs
 * can branch on it; `message` says what failed, where, and what to do.
 */
export class EvalError extends Error {
  readonly code: EvalErrorCode;

  constructor(code: EvalErrorCode, message: string, options: EvalErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}
