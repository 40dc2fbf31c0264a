/**
 * Tokens an image is counted as when a prompt's tokens are estimated: OpenAI's low-detail
 * image (what the fake OpenAI server counts too). A high-detail image costs more.
 */
export const ESTIMATED_IMAGE_TOKENS = 85;

/**
 * The most tokens one image is reserved at against a budget: above a high-detail image of
 * OpenAI (gpt-4.1-mini's largest is 2,488), Anthropic (about 1,600) and Google (258 a tile).
 */
export const MAX_IMAGE_TOKENS = 2_500;

/**
 * Tokens of a prompt or an answer as verdict estimates them before asking a judge: its
 * characters ÷ 4, rounded up (OpenAI's rule of thumb for English text and JSON), plus
 * {@link ESTIMATED_IMAGE_TOKENS} an image. A provider's tokenizer counts differently: text in
 * other scripts, code and numbers take more tokens a character.
 * @example
 * estimateTokens({ text: "How is Sarah as a person?" }); // 7
 */
export function estimateTokens(options: { text: string; images?: number }): number {
  return Math.ceil(options.text.length / 4) + ESTIMATED_IMAGE_TOKENS * (options.images ?? 0);
}

/**
 * The most tokens a prompt can be, whatever the tokenizer: its UTF-8 bytes (a byte-level BPE
 * tokenizer, as OpenAI's and Anthropic's are, never makes more tokens than bytes), plus
 * {@link MAX_IMAGE_TOKENS} an image. What a budget reserves for a prompt before sending it.
 * @example
 * maxTokensOf({ text: "naïve" }); // 6
 */
export function maxTokensOf(options: { text: string; images?: number }): number {
  return Buffer.byteLength(options.text, "utf8") + MAX_IMAGE_TOKENS * (options.images ?? 0);
}
