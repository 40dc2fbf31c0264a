import { ConfigError } from "../errors/config-error.ts";
import type { JudgeBatchEvent } from "../results/runner-events.ts";

/**
 * How `evaluate({ batch })` sends judge requests through the providers' batch APIs. Every
 * field is optional; `batch: true` takes all the defaults.
 */
export interface BatchOptions {
  /**
   * How long the run waits, after the last judge request arrived, for more before it submits
   * them as one batch: the requests of one step of every case arrive together.
   * @default 200
   */
  collectMs?: number;
  /**
   * The first wait between two status checks of a batch; each wait is 1.5 times the one before,
   * up to `maxPollIntervalMs`.
   * @default 5000
   */
  pollIntervalMs?: number;
  /** The longest wait between two status checks. @default 60000 */
  maxPollIntervalMs?: number;
  /**
   * Batches a request may fail in (a server error on its line) before it is sent directly.
   * Lines of an expired or cancelled batch, and lines the provider rejected (4xx), are sent
   * directly at once.
   * @default 2
   */
  maxAttempts?: number;
  /** Most requests in one batch; more are split. @default the provider's limit (OpenAI 50,000; Anthropic 100,000) */
  maxLines?: number;
}

/** {@link BatchOptions} with every default filled in. */
export type ResolvedBatchOptions = Required<Omit<BatchOptions, "maxLines">> & {
  maxLines: number | undefined;
};

/** What a batch did: a `judge-batch` runner event without its type and run. */
export type JudgeBatchProgress = Omit<JudgeBatchEvent, "type" | "runId">;

const DEFAULTS = {
  collectMs: 200,
  pollIntervalMs: 5000,
  maxPollIntervalMs: 60_000,
  maxAttempts: 2,
} as const;

/** Fills in the defaults; a bad value is a `ConfigError` naming the field. */
export function resolveBatchOptions(batch: true | BatchOptions): ResolvedBatchOptions {
  const given: BatchOptions = batch === true ? {} : batch;
  if (typeof given !== "object" || given === null) {
    throw new ConfigError(
      `batch must be true, false or an object of batch options; got ${JSON.stringify(batch)}.`,
    );
  }
  const number = (field: keyof BatchOptions, min: number, integer: boolean) => {
    const value = given[field];
    if (value === undefined) return undefined;
    if (
      typeof value !== "number" ||
      Number.isNaN(value) ||
      value < min ||
      (integer && !Number.isInteger(value))
    ) {
      throw new ConfigError(
        `batch.${field} must be ${integer ? "a whole number" : "a number"} of at least ${min}; got ${JSON.stringify(value)}.`,
      );
    }
    return value;
  };
  const resolved: ResolvedBatchOptions = {
    collectMs: number("collectMs", 0, false) ?? DEFAULTS.collectMs,
    pollIntervalMs: number("pollIntervalMs", 1, false) ?? DEFAULTS.pollIntervalMs,
    maxPollIntervalMs: number("maxPollIntervalMs", 1, false) ?? DEFAULTS.maxPollIntervalMs,
    maxAttempts: number("maxAttempts", 1, true) ?? DEFAULTS.maxAttempts,
    maxLines: number("maxLines", 1, true),
  };
  resolved.maxPollIntervalMs = Math.max(resolved.maxPollIntervalMs, resolved.pollIntervalMs);
  return resolved;
}
