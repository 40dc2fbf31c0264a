import type { JudgeModel, JudgeRequest, JudgeTokenLogprob, JudgeUsage } from "./judge-model.ts";

/** Who is asking: used for accounting, error messages and (with `trial`) cache keys. */
export interface JudgeCallMeta {
  /** Metric name, e.g. `"Toxicity"`. */
  metric: string;
  /** Step name, e.g. `"generateVerdicts"`. */
  step: string;
  /** Trial index when a case is run several times (`repeat`); 0 otherwise. */
  trial: number;
  /** Whether an answer is usable: transports that cache keep only answers that pass. */
  validate?: (response: JudgeResponse) => boolean;
  /**
   * Where the request queues for a concurrency slot: lower first, first come first served
   * among equals. The run gives every request of a case the number its case took when it
   * first asked, so the earliest-started cases finish first. Without one, a scheduler gives
   * the request a number of its own when it arrives.
   */
  priority?: number;
}

/** One judge answer as the transport hands it back, normalised. */
export interface JudgeResponse {
  /** Raw text of the answer, when the judge gave text. */
  text: string | null;
  /** Parsed object, when the judge gave one. */
  object: unknown;
  /** Token usage, `null` when the judge did not report it. */
  usage: JudgeUsage | null;
  /** Cost in USD, `null` when unknown (never a made-up 0). */
  costUsd: number | null;
  /** Why the model stopped, when the judge said (see `JudgeOutput.finishReason`). */
  finishReason?: string | undefined;
  /**
   * The answer's tokens with their log-probabilities, when the request asked for them
   * (`topLogprobs`) and the judge gave them; kept by the cache with the answer.
   */
  logprobs?: JudgeTokenLogprob[] | undefined;
  /** True when the answer came from a cache or a shared in-flight call: nothing was paid. */
  cached: boolean;
  /** Of cached answers: it was shared with an identical request in flight (not read from the cache). */
  shared?: boolean;
}

/**
 * How judge requests reach a judge. The default sends each request with retries; the
 * evaluate() scheduler adds concurrency limits, sharing of identical requests and caching.
 */
export interface JudgeTransport {
  send(judge: JudgeModel, request: JudgeRequest, meta: JudgeCallMeta): Promise<JudgeResponse>;
}
