import { ConfigError } from "../errors/config-error.ts";
import type { JudgeModel, JudgeOutput, JudgeRequest, JudgeUsage } from "./judge-model.ts";
import type { JudgeCallMeta, JudgeResponse, JudgeTransport } from "./judge-transport.ts";
import { isJudgeTokenLogprobs } from "./openai-logprobs.ts";
import type { RetryPolicy } from "./retry-policy.ts";
import { type AttemptSlot, type RetryInfo, type Sleep, withRetries } from "./with-retries.ts";

/** What {@link createDirectTransport} reports before it retries a call. */
export interface JudgeRetryInfo extends RetryInfo {
  /** Which metric step the call was for. */
  meta: JudgeCallMeta;
}

/** Options of {@link createDirectTransport}. */
export interface DirectTransportOptions {
  /**
   * Retry policy; missing fields take their defaults.
   * @default DEFAULT_RETRY_POLICY
   */
  retry?: Partial<RetryPolicy> | undefined;
  /** Called before each retry, e.g. to log it. */
  onRetry?: ((info: JudgeRetryInfo) => void) | undefined;
  /**
   * Waits between attempts; inject a fast one in tests.
   * @default a timer that the request's signal can abort
   */
  sleep?: Sleep | undefined;
  /**
   * Randomness for the backoff jitter.
   * @default Math.random
   */
  random?: (() => number) | undefined;
  /**
   * The clock of the retry policy's `maxElapsedMs`, in ms.
   * @default Date.now
   */
  now?: (() => number) | undefined;
}

/**
 * The plain transport: sends each request straight to the judge, with a time limit per
 * attempt and retries that honour `Retry-After`, and normalises the answer. evaluate()
 * wraps it with concurrency limits, sharing of identical requests and caching.
 * @example
 * const transport = createDirectTransport({ retry: { maxAttempts: 3 } });
 * const response = await transport.send(judge, request, { metric: "Toxicity", step: "generateOpinions", trial: 0 });
 */
export function createDirectTransport(options: DirectTransportOptions = {}): JudgeTransport {
  return { send: (judge, request, meta) => sendToJudge({ ...options, judge, request, meta }) };
}

/** Options of {@link sendToJudge}. */
export interface SendToJudgeOptions extends DirectTransportOptions {
  judge: JudgeModel;
  request: JudgeRequest;
  meta: JudgeCallMeta;
  /** A concurrency slot held during each attempt (the evaluate() scheduler's). */
  slot?: AttemptSlot | undefined;
  /** Told of each attempt's answer as the judge gave it, before its slot is released (what a budget settles with). */
  onAnswer?: ((answer: unknown) => void) | undefined;
}

/**
 * Sends one request to a judge with retries and normalises the answer: the one place where
 * judge calls are made and retries decided, for the direct transport and the scheduler.
 */
export async function sendToJudge(options: SendToJudgeOptions): Promise<JudgeResponse> {
  const { judge, request, meta } = options;
  const imageCount = request.images?.length ?? 0;
  if (imageCount > 0 && judge.supportsImages !== true) {
    throw new ConfigError(
      `Judge "${judge.name}" cannot take images, but the test case has ${imageCount} ` +
        `${imageCount === 1 ? "image" : "images"}: use a judge that supports images ` +
        `(e.g. gpt-4.1, claude-sonnet-4, gemini-2.5-flash) or set supportsImages on your JudgeModel.`,
    );
  }
  const onRetry = options.onRetry;
  const answer = await withRetries({
    judgeName: judge.name,
    policy: options.retry,
    signal: request.signal,
    sleep: options.sleep,
    random: options.random,
    now: options.now,
    slot: options.slot,
    onRetry: onRetry === undefined ? undefined : (info) => onRetry({ ...info, meta }),
    run: async (signal) => {
      const answer = await judge.generate({ ...request, signal });
      // An answer that comes after its attempt was given up (a judge that ignores the signal)
      // belongs to no attempt.
      if (!signal.aborted) options.onAnswer?.(answer);
      return answer;
    },
  });
  return toJudgeResponse({ judge, answer });
}

/** Normalises what `JudgeModel.generate` resolved to. */
export function toJudgeResponse(options: { judge: JudgeModel; answer: unknown }): JudgeResponse {
  const { answer } = options;
  if (typeof answer === "string") {
    return { text: answer, object: undefined, usage: null, costUsd: null, cached: false };
  }
  if (typeof answer !== "object" || answer === null) {
    throw new ConfigError(
      `Judge "${options.judge.name}" answered ${answer === null ? "null" : `a ${typeof answer}`}: ` +
        `generate() must resolve to a string or to { text } or { object } (with optional usage and costUsd).`,
    );
  }
  const output = answer as JudgeOutput;
  if (output.logprobs !== undefined && !isJudgeTokenLogprobs(output.logprobs)) {
    throw new ConfigError(
      `Judge "${options.judge.name}" answered with malformed logprobs: give an array of ` +
        "{ token: string, logprob: number, topLogprobs: [{ token, logprob }] }, one per token of the answer, or leave logprobs out.",
    );
  }
  return {
    text: typeof output.text === "string" ? output.text : null,
    object: output.object,
    usage: toUsage(output.usage),
    costUsd:
      typeof output.costUsd === "number" && Number.isFinite(output.costUsd) ? output.costUsd : null,
    cached: false,
    ...(typeof output.finishReason === "string" ? { finishReason: output.finishReason } : {}),
    ...(output.logprobs === undefined ? {} : { logprobs: output.logprobs }),
  };
}

function toUsage(usage: JudgeUsage | undefined): JudgeUsage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const { inputTokens, outputTokens } = usage;
  if (!Number.isFinite(inputTokens) || !Number.isFinite(outputTokens)) return null;
  return { inputTokens, outputTokens };
}
