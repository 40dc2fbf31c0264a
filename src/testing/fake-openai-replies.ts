import { type FakeLogprobs, resolveFakeLogprobs } from "./fake-openai-logprobs.ts";
import type { FakeOpenAIRequest } from "./parse-fake-openai-request.ts";

/** Options of an error reply: what goes into OpenAI's `{ error: { message, type, code } }` body. */
export interface FakeErrorReplyOptions {
  /** `error.code`, e.g. `"rate_limit_exceeded"`; `null` in the body when absent. */
  code?: string;
  /** `error.type`, e.g. `"server_error"`. @default chosen from the status, as OpenAI does */
  type?: string;
  /** `error.message`. @default a message in OpenAI's words for the status */
  message?: string;
  /** Sent as the `Retry-After` header, in seconds. */
  retryAfterSeconds?: number;
  /** More response headers. */
  headers?: Record<string, string>;
}

/**
 * Why the fake model stopped, in OpenAI's Chat Completions words: `"length"` (out of output
 * tokens; the Responses API says `incomplete` / `max_output_tokens`) or `"content_filter"`.
 */
export type FakeFinishReason = "stop" | "length" | "content_filter";

/** Options of a successful reply. */
export interface FakeAnswerReplyOptions {
  /**
   * Sent as the answer's finish reason, to play a cut-off or filtered answer.
   * @default "stop"
   */
  finishReason?: FakeFinishReason;
  /**
   * The answer's token log-probabilities, sent when the request asks for them: candidates for
   * chosen tokens (keyed by the token; they go to its last occurrence), or every token. Without
   * it, or for tokens it leaves out, each token is synthesised at logprob 0 with itself as its
   * only candidate. Checked against the answer when the reply is made.
   * @default synthesised from the answer
   * @example
   * reply.json({ score: 7, reason: "…" }, {
   *   logprobs: { "7": [{ token: "7", logprob: -0.3 }, { token: "8", logprob: -1.5 }] },
   * });
   */
  logprobs?: FakeLogprobs;
}

/** Options of {@link reply.cut}. */
export interface FakeCutReplyOptions {
  /**
   * How many bytes of the answer's body are sent before the connection is destroyed; the
   * `content-length` header announces the whole body.
   * @default 0 (the status line and headers only)
   */
  afterBytes?: number;
}

/** Options of {@link reply.notJson}. */
export interface FakeNotJsonReplyOptions {
  /**
   * The body sent with the 200.
   * @default an HTML "502 Bad Gateway" page, as a proxy in front of the model sends
   */
  body?: string;
  /** @default "text/html; charset=utf-8" */
  contentType?: string;
}

/** What the fake server answers to one request. Made with {@link reply}. */
export type FakeReply =
  | ({ kind: "json"; value: unknown } & FakeAnswerReplyOptions)
  | ({ kind: "text"; text: string } & FakeAnswerReplyOptions)
  | ({ kind: "error"; status: number } & FakeErrorReplyOptions)
  | { kind: "drop" }
  | ({ kind: "cut" } & FakeCutReplyOptions)
  | ({ kind: "not-json" } & FakeNotJsonReplyOptions)
  | { kind: "hang" }
  | { kind: "fill" };

/** Decides the answer to one request; `undefined` means "give the default answer". */
export type FakeResponder = (
  request: FakeOpenAIRequest,
) => FakeReply | undefined | Promise<FakeReply | undefined>;

/** Makes {@link FakeReply} values for `replies`, `enqueue` and responders. */
export const reply = {
  /**
   * Answers with `JSON.stringify(value)` as the content (or as the tool call's arguments).
   * @example
   * server.enqueue(reply.json({ verdicts: [{ verdict: "yes" }] }));
   */
  json(value: unknown, options: FakeAnswerReplyOptions = {}): FakeReply {
    checkLogprobs({ content: JSON.stringify(value) ?? "null", options });
    return { kind: "json", value, ...options };
  },
  /**
   * Answers with this exact content: prose, malformed JSON, JSON in ```json fences…
   * @example
   * server.enqueue(reply.text('{"opinions": ["cut', { finishReason: "length" }));
   */
  text(text: string, options: FakeAnswerReplyOptions = {}): FakeReply {
    checkLogprobs({ content: text, options });
    return { kind: "text", text, ...options };
  },
  /**
   * The default answer: a deterministic value for the schema asked for (verdict's step schemas;
   * plain objects, arrays, strings, enums, numbers, booleans, nullable values), `{}` without one.
   */
  fill(): FakeReply {
    return { kind: "fill" };
  },
  /** Destroys the connection without answering, as a dropped network would. */
  drop(): FakeReply {
    return { kind: "drop" };
  },
  /**
   * Sends `200 OK` and its headers (announcing the default answer's full length), then the
   * first `afterBytes` bytes of that answer, then destroys the connection: a response cut
   * short after its headers, as a reset connection or a proxy that gives up mid-answer does.
   * @example
   * server.enqueue(reply.cut(), reply.cut({ afterBytes: 40 }));
   */
  cut(options: FakeCutReplyOptions = {}): FakeReply {
    return { kind: "cut", ...options };
  },
  /**
   * Answers `200 OK` with a body that is not the provider's JSON (by default a proxy's HTML
   * error page).
   * @example
   * server.enqueue(reply.notJson({ body: "upstream timed out", contentType: "text/plain" }));
   */
  notJson(options: FakeNotJsonReplyOptions = {}): FakeReply {
    return { kind: "not-json", ...options };
  },
  /**
   * Accepts the request and never answers: no status, no headers, until the client gives up
   * or the server closes. A judge that hangs.
   */
  hang(): FakeReply {
    return { kind: "hang" };
  },
  /** Answers with an HTTP error and OpenAI's error body. */
  error(status: number, options: FakeErrorReplyOptions = {}): FakeReply {
    return { kind: "error", status, ...options };
  },
  /** 429 `rate_limit_exceeded`, with a `Retry-After` header when `retryAfterSeconds` is given. */
  rateLimit(options: { retryAfterSeconds?: number } = {}): FakeReply {
    const wait = options.retryAfterSeconds;
    return {
      kind: "error",
      status: 429,
      type: "requests",
      code: "rate_limit_exceeded",
      message: `Rate limit reached for requests. Please try again in ${wait ?? 1}s.`,
      ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
    };
  },
  /** 429 `insufficient_quota`: OpenAI's answer when the account has no credit left. */
  quotaExceeded(): FakeReply {
    return {
      kind: "error",
      status: 429,
      type: "insufficient_quota",
      code: "insufficient_quota",
      message:
        "You exceeded your current quota, please check your plan and billing details. For more " +
        "information on this error, read the docs: " +
        "https://platform.openai.com/docs/guides/error-codes/api-errors.",
    };
  },
  /**
   * A server-side failure.
   * @default status 500
   */
  serverError(status = 500): FakeReply {
    return { kind: "error", status };
  },
  /**
   * 404 `model_not_found`: OpenAI's answer to a model it does not have (a typo, or no access).
   * @example
   * startFakeOpenAIServer({ respond: (request) => request.model === "gpt-4.1" ? undefined : reply.modelNotFound(request.model) });
   */
  modelNotFound(model: string): FakeReply {
    return {
      kind: "error",
      status: 404,
      type: "invalid_request_error",
      code: "model_not_found",
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
    };
  },
  /** 401 `invalid_api_key`. */
  unauthorized(): FakeReply {
    return {
      kind: "error",
      status: 401,
      type: "invalid_request_error",
      code: "invalid_api_key",
      message:
        "Incorrect API key provided: sk-***. You can find your API key at " +
        "https://platform.openai.com/account/api-keys.",
    };
  },
};

/** Throws now, in the test that scripts it, when a reply's logprobs do not fit its answer. */
function checkLogprobs(options: { content: string; options: FakeAnswerReplyOptions }): void {
  const script = options.options.logprobs;
  if (script !== undefined) resolveFakeLogprobs({ content: options.content, script });
}

/** The JSON body of an error reply, with OpenAI's default type and message for the status. */
export function errorBody(
  options: { status: number; param?: string | null } & FakeErrorReplyOptions,
): {
  error: { message: string; type: string; param: string | null; code: string | null };
} {
  const { status } = options;
  const type =
    options.type ??
    (status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error");
  const message =
    options.message ??
    (status >= 500
      ? "The server had an error while processing your request. Sorry about that!"
      : `Request failed with status ${status}.`);
  return { error: { message, type, param: options.param ?? null, code: options.code ?? null } };
}

/** Whether a value is a well-formed {@link FakeReply}: responders are user code. */
export function isFakeReply(value: unknown): value is FakeReply {
  if (typeof value !== "object" || value === null || !("kind" in value)) return false;
  switch (value.kind) {
    case "json":
      return "value" in value;
    case "text":
      return "text" in value && typeof value.text === "string";
    case "error":
      return "status" in value && typeof value.status === "number";
    case "cut":
      return (
        !("afterBytes" in value) ||
        value.afterBytes === undefined ||
        (Number.isSafeInteger(value.afterBytes) && (value.afterBytes as number) >= 0)
      );
    case "not-json":
      return (
        (!("body" in value) || value.body === undefined || typeof value.body === "string") &&
        (!("contentType" in value) ||
          value.contentType === undefined ||
          typeof value.contentType === "string")
      );
    case "drop":
    case "hang":
    case "fill":
      return true;
    default:
      return false;
  }
}
