import type { ZodType } from "zod";
import type { ImagePart } from "../test-case/image.ts";

/** Token usage of one judge call. */
export interface JudgeUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What a judge is asked: one prompt, and the JSON its answer must satisfy. */
export interface JudgeRequest {
  /** The full rendered prompt. */
  prompt: string;
  /** Images referenced by the prompt (`[image 1]`, `[image 2]`, …), in order. */
  images?: ImagePart[];
  /** What the answer must satisfy. */
  schema: ZodType;
  /** The same as JSON Schema. */
  jsonSchema: object;
  /** Aborts the call (run cancelled, attempt timed out). */
  signal?: AbortSignal;
}

/** A judge's answer with its accounting. Give `object` (already parsed) or `text`. */
export interface JudgeOutput {
  object?: unknown;
  text?: string;
  usage?: JudgeUsage;
  /** Cost of this call in USD, when known. */
  costUsd?: number;
  /**
   * Why the model stopped, as the provider says (`"stop"`, `"length"`, `"max_tokens"`,
   * `"content-filter"`…). An answer that stopped for its length, a content filter or an
   * interruption is incomplete: it is asked again, never scored.
   */
  finishReason?: string;
}

/**
 * The custom-model contract: anything that can answer a prompt with JSON. A `JudgeModel` is
 * identified by its `name` (for caching and reports): give two different judges two names.
 * @example
 * const judge: JudgeModel = {
 *   name: "my-judge",
 *   async generate({ prompt }) { return await myClient.complete(prompt); },
 * };
 */
export interface JudgeModel {
  /** Shown as `evaluationModel`; part of every cache key. */
  readonly name: string;
  /** Answers one request. A string answer is parsed leniently, then validated. */
  generate(request: JudgeRequest): Promise<string | JudgeOutput>;
  /** Whether the judge can see images. Test cases with images need `true`. */
  readonly supportsImages?: boolean;
}

/** True when `value` looks like a {@link JudgeModel}. */
export function isJudgeModel(value: unknown): value is JudgeModel {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { name?: unknown }).name === "string" &&
    typeof (value as { generate?: unknown }).generate === "function"
  );
}
