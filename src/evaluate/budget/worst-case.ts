import { estimateTokens, maxTokensOf } from "../../judge/estimate-tokens.ts";
import type { JudgeRequest } from "../../judge/judge-model.ts";
import type { ModelPrice } from "../../judge/usage-and-cost.ts";
import type { BudgetAmount } from "./judge-budget.ts";

/** Tokens a request may add around its prompt: the message's framing, the output format's instructions. */
const FRAMING_TOKENS = 100;
/** The least room an answer gets: a step's JSON answer is rarely a tenth of it. */
const MIN_OUTPUT_TOKENS = 1_024;

/** A request's worst case: the output limit it is sent with, and the most it can cost. */
export interface WorstCase {
  /** Sent as the request's `maxOutputTokens`: the provider stops the answer there. */
  maxOutputTokens: number;
  /** What the call can cost at most: reserved against the budget before it is sent. */
  amount: BudgetAmount;
}

/**
 * The most a judge request can cost, what a budget reserves before sending it:
 * - prompt: its UTF-8 bytes (a byte-level tokenizer never makes more tokens), the JSON
 *   schema's bytes (providers count the structured-output schema as input), 2,500 tokens an
 *   image and 100 for the framing;
 * - answer: at most `maxOutputTokens`, which is sent with the request so that the provider
 *   cuts the answer there: twice the prompt's estimated tokens, at least 1,024 (a step's
 *   answer lists at most what its prompt quotes, with short reasons);
 * - at the judge's price per million tokens, times `factor` (the batch discount).
 * @example
 * worstCaseOf({ request, price: { inputPerMillion: 2, outputPerMillion: 8 }, factor: 1 });
 */
export function worstCaseOf(options: {
  request: JudgeRequest;
  price: ModelPrice | null;
  factor: number;
}): WorstCase {
  const { request, price } = options;
  const images = request.images?.length ?? 0;
  const limit = Math.max(MIN_OUTPUT_TOKENS, 2 * estimateTokens({ text: request.prompt, images }));
  const maxOutputTokens = Math.min(request.maxOutputTokens ?? limit, limit);
  const inputTokens =
    maxTokensOf({ text: request.prompt, images }) +
    maxTokensOf({ text: JSON.stringify(request.jsonSchema) }) +
    FRAMING_TOKENS;
  return {
    maxOutputTokens,
    amount: {
      tokens: inputTokens + maxOutputTokens,
      costUsd:
        price === null
          ? 0
          : ((inputTokens * price.inputPerMillion + maxOutputTokens * price.outputPerMillion) /
              1_000_000) *
            options.factor,
    },
  };
}

/**
 * What an answered call spent, for the budget: its tokens and its cost as the judge reported
 * them (else its usage at `price` times `factor`). What the answer does not tell is taken from
 * `reserved`, its worst case: never counted as less than it may have been.
 */
export function spentBy(options: {
  answer: unknown;
  reserved: BudgetAmount;
  price: ModelPrice | null;
  factor: number;
}): BudgetAmount {
  const { answer, reserved, price } = options;
  const output = typeof answer === "object" && answer !== null ? answer : {};
  const usage = (output as { usage?: { inputTokens?: unknown; outputTokens?: unknown } }).usage;
  const input = usage?.inputTokens;
  const completion = usage?.outputTokens;
  const known =
    typeof input === "number" &&
    Number.isFinite(input) &&
    typeof completion === "number" &&
    Number.isFinite(completion);
  const reported = (output as { costUsd?: unknown }).costUsd;
  const costUsd =
    typeof reported === "number" && Number.isFinite(reported)
      ? reported
      : known && price !== null
        ? ((input * price.inputPerMillion + completion * price.outputPerMillion) / 1_000_000) *
          options.factor
        : reserved.costUsd;
  return { tokens: known ? input + completion : reserved.tokens, costUsd };
}
