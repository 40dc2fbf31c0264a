import type { ZodType } from "zod";
import type { JudgeTokenLogprob } from "../results/judge-token-logprob.ts";
import type { ImagePart } from "../test-case/image.ts";
import type { ModelPrice } from "./usage-and-cost.ts";

export type { JudgeTokenLogprob } from "../results/judge-token-logprob.ts";

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
  /**
   * Ask for the answer's token log-probabilities with this many candidates per token (1–20).
   * Judges that cannot give them ignore it.
   */
  topLogprobs?: number;
  /**
   * The most tokens the answer may have: stop there, as the provider's own output limit does.
   * verdict sets it on the requests of a run with a budget (`budget`, `--max-cost`), so that no
   * answer can cost more than was reserved for it; a judge of your own should honour it for
   * the budget to hold. An answer cut at the limit is asked again, never scored.
   */
  maxOutputTokens?: number;
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
  /** The answer's tokens with their log-probabilities, in order, when asked for and available. */
  logprobs?: JudgeTokenLogprob[];
}

/** One request of a batch: an id unique in the batch (`[A-Za-z0-9_-]{1,64}`) and what it asks. */
export interface JudgeBatchLine {
  id: string;
  request: JudgeRequest;
}

/** Line counts of a batch, as its provider reports them. */
export interface JudgeBatchCounts {
  total: number;
  completed: number;
  failed: number;
}

/** Where a batch is, as its provider says. */
export interface JudgeBatchState {
  /** The provider's id of the batch, e.g. `"batch_abc123"` or `"msgbatch_…"`. */
  batchId: string;
  /** `"pending"` while the provider works on it; `"ended"` once its results can be read. */
  phase: "pending" | "ended";
  /** The provider's own word: `validating`, `in_progress`, `finalizing`, `completed`, `expired`, `ended`, … */
  providerStatus: string;
  /** Lines done so far, when the provider says. */
  counts: JudgeBatchCounts | null;
  /** Why the provider failed the batch as a whole (e.g. its input did not validate), if it did. */
  error: string | null;
}

/** What became of one line of an ended batch. */
export type JudgeBatchLineResult =
  | { id: string; status: "answered"; answer: JudgeOutput }
  | {
      id: string;
      /** `"expired"`: the batch's window closed before the line ran; `"cancelled"`: the batch was cancelled. */
      status: "failed" | "expired" | "cancelled";
      error: { message: string; statusCode: number | null; code: string | null };
    };

/**
 * A judge's access to its provider's batch API (OpenAI Batch, Anthropic Message Batches):
 * many requests sent as one job, answered within hours at half the price. evaluate() uses it
 * with `batch: true`; a {@link JudgeModel} without one is called directly.
 */
export interface JudgeBatchApi {
  /** Who runs the batches, e.g. `"openai.batch"`: batch ids are only meaningful to it. */
  readonly provider: string;
  /** Most lines one batch may hold. */
  readonly maxLines: number;
  /** Most bytes one batch's input may have (estimated from the prompts, see docs/batch.md). */
  readonly maxBytes: number;
  /** Submits the lines as one batch. */
  start(options: {
    lines: readonly JudgeBatchLine[];
    signal?: AbortSignal | undefined;
  }): Promise<JudgeBatchState>;
  /** Where a batch is now. */
  status(options: { batchId: string; signal?: AbortSignal | undefined }): Promise<JudgeBatchState>;
  /** Every line's outcome, once the batch has ended. Answers carry their cost at the batch price. */
  results(options: {
    batchId: string;
    signal?: AbortSignal | undefined;
  }): Promise<JudgeBatchLineResult[]>;
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
  /**
   * Where the judge is served from, e.g. `"https://gateway.example.com/v1"`: part of every
   * cache key, so that the same `name` served elsewhere never reuses this one's answers. Only
   * its scheme, host, port and path count (never a user name, password or query). Judges made
   * from AI SDK models read their model's base URL; a custom judge that calls a server
   * should say which. Without one, the judge is keyed by its `name` alone.
   */
  readonly endpoint?: string | null;
  /**
   * The provider's batch API, used by `evaluate({ batch: true })`; without one (or `null`),
   * every request is sent with `generate()`. Judges made from OpenAI and Anthropic models
   * have one.
   */
  readonly batch?: JudgeBatchApi | null;
  /**
   * The judge's price per million input and output tokens, when known: what a dry run
   * (`evaluate({ dryRun: true })`, `--dry-run`) prices its estimate at and what a cost budget
   * (`budget.maxCostUsd`, `--max-cost`) reserves against. Judges made by `createJudge` take it
   * from verdict's price table (or its `prices`). Without one, the estimate says the cost is
   * unknown and a cost budget refuses the judge.
   */
  readonly price?: ModelPrice | null;
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
