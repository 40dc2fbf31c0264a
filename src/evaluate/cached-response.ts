import type { JudgeResponse } from "../judge/judge-transport.ts";
import type { CachedJudgeAnswer } from "../store/run-store.ts";

/** A cached answer as the transport hands it back: nothing paid. */
export function cachedResponse(hit: CachedJudgeAnswer): JudgeResponse {
  return {
    text: hit.text,
    object: hit.object ?? undefined,
    usage:
      hit.inputTokens === null || hit.outputTokens === null
        ? null
        : { inputTokens: hit.inputTokens, outputTokens: hit.outputTokens },
    costUsd: hit.costUsd,
    cached: true,
    ...(hit.logprobs === undefined ? {} : { logprobs: hit.logprobs }),
  };
}
