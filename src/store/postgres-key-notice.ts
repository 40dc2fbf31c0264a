import type { CachedJudgeAnswer } from "./run-store.ts";
import { numberOrNull, type StoreRow, storedLogprobs, textOrNull } from "./stored-rows.ts";

/** A `judge_cache` row's answer columns, as stored. */
export interface StoredAnswerColumns {
  /** The answer's text as a JSON string, or `null`. */
  text: string | null;
  /** The answer's object as JSON text, or `null`. */
  object: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  /** The answer's token log-probabilities as JSON text, or `null`. */
  logprobs: string | null;
}

/** A cached answer from its `judge_cache` row. */
export function toCachedAnswer(row: StoreRow): CachedJudgeAnswer {
  const text = textOrNull(row, "text");
  const object = textOrNull(row, "object");
  return {
    text: text === null ? null : (JSON.parse(text) as string),
    object: object === null ? undefined : JSON.parse(object),
    inputTokens: numberOrNull(row, "input_tokens"),
    outputTokens: numberOrNull(row, "output_tokens"),
    costUsd: numberOrNull(row, "cost_usd"),
    ...storedLogprobs(row),
  };
}

// PostgreSQL refuses a notification payload of 8000 bytes or more.
const MAX_NOTICE_BYTES = 7900;

/**
 * The payload of a key's notification: the key as a JSON string, then, when the answer was
 * stored and is small enough to travel with it, a newline and the stored columns as JSON, so
 * that a waiting process takes the answer from the notice instead of reading it again.
 */
export function encodeKeyNotice(key: string, stored?: StoredAnswerColumns): string {
  const head = JSON.stringify(key);
  if (stored === undefined) return head;
  const payload = `${head}\n${JSON.stringify([
    stored.text,
    stored.object,
    stored.input_tokens,
    stored.output_tokens,
    stored.cost_usd,
    stored.logprobs,
  ])}`;
  return Buffer.byteLength(payload) < MAX_NOTICE_BYTES ? payload : head;
}

/** The key a notification is about; `null` when the payload is not one of verdict's. */
export function noticeKey(payload: string): string | null {
  const end = payload.indexOf("\n");
  try {
    const key: unknown = JSON.parse(end === -1 ? payload : payload.slice(0, end));
    return typeof key === "string" ? key : null;
  } catch {
    return null;
  }
}

/** The answer a notification carries, if any (see {@link encodeKeyNotice}). */
export function noticeAnswer(payload: string): CachedJudgeAnswer | undefined {
  const end = payload.indexOf("\n");
  if (end === -1) return undefined;
  try {
    const [text, object, inputTokens, outputTokens, costUsd, logprobs] = JSON.parse(
      payload.slice(end + 1),
    ) as unknown[];
    return toCachedAnswer({
      text,
      object,
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      cost_usd: costUsd,
      // A notice of an older verdict has no logprobs.
      logprobs: logprobs ?? null,
    });
  } catch {
    return undefined;
  }
}
