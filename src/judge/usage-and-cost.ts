/** Price of a model in USD per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** Model prices by model id, e.g. `{ "my-model": { inputPerMillion: 1, outputPerMillion: 2 } }`. */
export type ModelPrices = Readonly<Record<string, ModelPrice>>;

const price = (inputPerMillion: number, outputPerMillion: number): Readonly<ModelPrice> =>
  Object.freeze({ inputPerMillion, outputPerMillion });

/**
 * List prices (USD per million input/output tokens, standard tier, no cache discount) of
 * common judge models. Prices change: pass `prices` to `createJudge` or `resolveJudge` to
 * override an entry or add a model; a model missing here has an unknown (`null`) cost.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, Readonly<ModelPrice>>> = Object.freeze({
  "gpt-4.1": price(2, 8),
  "gpt-4.1-mini": price(0.4, 1.6),
  "gpt-4.1-nano": price(0.1, 0.4),
  "gpt-4o": price(2.5, 10),
  "gpt-4o-mini": price(0.15, 0.6),
  o3: price(2, 8),
  "o4-mini": price(1.1, 4.4),
  "gpt-5": price(1.25, 10),
  "gpt-5-mini": price(0.25, 2),
  "gpt-5-nano": price(0.05, 0.4),
  "claude-opus-4": price(15, 75),
  "claude-opus-4-1": price(15, 75),
  "claude-sonnet-4": price(3, 15),
  "claude-sonnet-4-5": price(3, 15),
  "claude-haiku-4-5": price(1, 5),
  "claude-3-5-haiku": price(0.8, 4),
  "gemini-2.5-pro": price(1.25, 10),
  "gemini-2.5-flash": price(0.3, 2.5),
  "gemini-2.0-flash": price(0.1, 0.4),
});

/** What may follow a model id and still be the same model: a date or a channel. */
export const MODEL_VERSION_SUFFIX =
  /^-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{3}|latest|preview(?:-[\w.-]*)?|exp(?:-[\w.-]*)?)$/;

/** Options of {@link findModelPrice}. */
export interface FindModelPriceOptions {
  /** The model id, e.g. `"gpt-4.1-mini-2025-04-14"`, `"openai:gpt-4.1"` or `"models/gemini-2.5-flash"`. */
  modelId: string;
  /** Prices that override or extend {@link DEFAULT_MODEL_PRICES}. */
  prices?: ModelPrices | undefined;
}

/**
 * Finds the price of a model: by exact id first (with and without a `provider:` or
 * `models/` prefix), then by the longest priced id that the id starts with where the rest
 * is a version suffix (`-2025-04-14`, `-20250514`, `-latest`, `-preview…`). So
 * `"gpt-4.1-mini-2025-04-14"` is priced as `gpt-4.1-mini`, and `"gpt-4.1-mini"` is never
 * priced as `gpt-4.1`. Returns `null` for an unknown model.
 * @example
 * findModelPrice({ modelId: "claude-sonnet-4-5-20250929" }); // { inputPerMillion: 3, outputPerMillion: 15 }
 */
export function findModelPrice(options: FindModelPriceOptions): ModelPrice | null {
  const table: Record<string, ModelPrice> = {};
  for (const [modelId, modelPrice] of Object.entries({
    ...DEFAULT_MODEL_PRICES,
    ...options.prices,
  })) {
    table[modelId.toLowerCase()] = modelPrice;
  }
  const fullId = options.modelId.trim().toLowerCase();
  const bareId = fullId.replace(/^[\w.-]+:/, "").replace(/^models\//, "");
  const exact = table[fullId] ?? table[bareId];
  if (exact !== undefined) return { ...exact };
  let best: string | undefined;
  for (const pricedId of Object.keys(table)) {
    if (!bareId.startsWith(pricedId) || !MODEL_VERSION_SUFFIX.test(bareId.slice(pricedId.length)))
      continue;
    if (best === undefined || pricedId.length > best.length) best = pricedId;
  }
  const found = best === undefined ? undefined : table[best];
  return found === undefined ? null : { ...found };
}

/** Options of {@link costOfUsage}. */
export interface CostOfUsageOptions {
  /** Tokens used (a `JudgeUsage`), `null` when the judge did not report them. */
  usage: { inputTokens: number; outputTokens: number } | null | undefined;
  /** The model's price, `null` when unknown. */
  price: ModelPrice | null | undefined;
}

/**
 * Cost in USD of the tokens used. Unknown usage or an unknown price gives `null`, never a
 * made-up 0.
 * @example
 * costOfUsage({ usage: { inputTokens: 1000, outputTokens: 500 }, price: findModelPrice({ modelId: "gpt-4.1" }) }); // 0.006
 */
export function costOfUsage(options: CostOfUsageOptions): number | null {
  const { usage, price: modelPrice } = options;
  if (!usage || !modelPrice) return null;
  const counts = [usage.inputTokens, usage.outputTokens];
  if (!counts.every((count) => Number.isFinite(count) && count >= 0)) return null;
  return (
    (usage.inputTokens * modelPrice.inputPerMillion +
      usage.outputTokens * modelPrice.outputPerMillion) /
    1_000_000
  );
}

/**
 * What a batch request costs of the list price: OpenAI's Batch API and Anthropic's Message
 * Batches both charge half, for input and output tokens alike.
 */
export const BATCH_PRICE_FACTOR = 0.5;

/**
 * Cost in USD of tokens used through a provider's batch API: {@link costOfUsage} at
 * {@link BATCH_PRICE_FACTOR} of the list price. Unknown usage or price gives `null`.
 * @example
 * costOfBatchUsage({ usage: { inputTokens: 1000, outputTokens: 500 }, price: findModelPrice({ modelId: "gpt-4.1" }) }); // 0.003
 */
export function costOfBatchUsage(options: CostOfUsageOptions): number | null {
  const cost = costOfUsage(options);
  return cost === null ? null : cost * BATCH_PRICE_FACTOR;
}
