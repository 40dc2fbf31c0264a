import type { JudgeTokenLogprob } from "./judge-model.ts";

/** The most candidates per token OpenAI gives (`top_logprobs`). */
export const MAX_TOP_LOGPROBS = 20;

/**
 * Whether a model's provider takes OpenAI's `logprobs` option: OpenAI's own (Responses or
 * Chat, `openai.responses`, `openai.chat`) and Azure OpenAI (`azure.responses`, `azure.chat`).
 * Other providers, and OpenAI-compatible servers under another provider name, have no
 * such option.
 */
export function takesOpenAILogprobs(model: { provider: string }): boolean {
  const family = model.provider.split(".")[0];
  return family === "openai" || family === "azure";
}

/**
 * The answer's token log-probabilities from an AI SDK result's `providerMetadata`, or
 * `undefined` when it has none (not asked for, a reasoning model, another provider). Reads
 * both shapes of `@ai-sdk/openai` 4: Chat Completions gives one array of
 * `{ token, logprob, top_logprobs: [{ token, logprob }] }`; the Responses API one such array
 * per content part of the message, which are joined in order. Azure's Responses models put
 * them under `azure` instead of `openai`.
 */
export function readOpenAILogprobs(providerMetadata: unknown): JudgeTokenLogprob[] | undefined {
  if (!isRecord(providerMetadata)) return undefined;
  for (const namespace of ["openai", "azure"]) {
    const metadata = providerMetadata[namespace];
    if (!isRecord(metadata) || metadata.logprobs === undefined) continue;
    return toTokenLogprobs(metadata.logprobs);
  }
  return undefined;
}

/**
 * Normalises OpenAI's wire tokens (one array, or an array per content part) into
 * {@link JudgeTokenLogprob}s; `undefined` when there are none or one is not well formed, so
 * that a step never scores with tokens out of step with the answer.
 */
export function toTokenLogprobs(wire: unknown): JudgeTokenLogprob[] | undefined {
  if (!Array.isArray(wire)) return undefined;
  const flat: unknown[] = wire.every(Array.isArray) ? wire.flat() : wire;
  const tokens: JudgeTokenLogprob[] = [];
  for (const entry of flat) {
    if (!isCandidate(entry)) return undefined;
    const top = (entry as { top_logprobs?: unknown }).top_logprobs ?? [];
    if (!Array.isArray(top) || !top.every(isCandidate)) return undefined;
    tokens.push({
      token: entry.token,
      logprob: entry.logprob,
      topLogprobs: top.map((candidate) => ({
        token: candidate.token,
        logprob: candidate.logprob,
      })),
    });
  }
  return tokens.length > 0 ? tokens : undefined;
}

/** Whether `value` is a well-formed list of {@link JudgeTokenLogprob} (custom judges are user code). */
export function isJudgeTokenLogprobs(value: unknown): value is JudgeTokenLogprob[] {
  return (
    Array.isArray(value) &&
    value.every((entry: unknown) => {
      if (!isCandidate(entry)) return false;
      const top = (entry as { topLogprobs?: unknown }).topLogprobs;
      return Array.isArray(top) && top.every(isCandidate);
    })
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCandidate(value: unknown): value is { token: string; logprob: number } {
  if (!isRecord(value)) return false;
  // Finite, as JSON (the wire, the cache) can hold: OpenAI gives -9999 for a negligible one.
  return typeof value.token === "string" && Number.isFinite(value.logprob);
}
