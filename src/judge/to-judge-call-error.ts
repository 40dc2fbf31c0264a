import { JudgeCallError } from "../errors/judge-call-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { classifyJudgeError } from "./classify-judge-error.ts";
import { providerOfJudgeName } from "./providers.ts";
import { similarModelName } from "./similar-model-name.ts";

/** Options of {@link toJudgeCallError}. */
export interface ToJudgeCallErrorOptions {
  /** Whatever the judge threw. */
  error: unknown;
  /** Name of the judge, for the message and to name the API-key variable to check. */
  judgeName: string;
  /**
   * Current time in ms, to read a `Retry-After` given as an HTTP date.
   * @default Date.now()
   */
  now?: number;
  /**
   * The environment whose secret values are masked in the provider's text.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Classifies anything a judge may throw (AI SDK `APICallError`/`RetryError`, openai-node
 * errors, fetch network errors, timeouts) as a {@link JudgeCallError} that says whether a
 * retry can help and what to do, with secrets masked in what the provider said. A
 * `JudgeCallError` is returned as is.
 * @example
 * const error = toJudgeCallError({ error: caught, judgeName: "openai:gpt-4.1" });
 * if (error.retryable) scheduleRetry(error.retryAfterMs);
 */
export function toJudgeCallError(options: ToJudgeCallErrorOptions): JudgeCallError {
  if (options.error instanceof JudgeCallError) return options.error;
  const failure = classifyJudgeError(options.error, { now: options.now });
  const redact = (text: string) => redactSecretText(text, { env: options.env });
  return JudgeCallError.fromFailure({
    judgeName: options.judgeName,
    failure: {
      ...failure,
      providerMessage: redact(failure.providerMessage),
      url: failure.url === null ? null : redact(failure.url),
    },
    apiKeyVariable: providerOfJudgeName(options.judgeName)?.apiKeyVariable,
    similarModel:
      failure.kind === "not-found" ? similarModelName({ modelId: options.judgeName }) : null,
    cause: options.error,
  });
}
