import { APICallError } from "ai";

/**
 * An AI SDK `APICallError` as a provider call raises it, for tests: a status, a JSON body,
 * response headers, a cause.
 */
export function apiError(options: {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  message?: string;
  cause?: unknown;
  isRetryable?: boolean;
}): APICallError {
  return new APICallError({
    message: options.message ?? "provider said no",
    url: "https://api.openai.com/v1/responses",
    requestBodyValues: {},
    ...(options.status === undefined ? {} : { statusCode: options.status }),
    ...(options.headers === undefined ? {} : { responseHeaders: options.headers }),
    ...(options.body === undefined ? {} : { responseBody: JSON.stringify(options.body) }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    ...(options.isRetryable === undefined ? {} : { isRetryable: options.isRetryable }),
  });
}
