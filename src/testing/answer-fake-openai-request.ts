import { defaultAnswer } from "../judge/default-answer.ts";
import {
  anthropicErrorBody,
  parseFakeAnthropicRequest,
  renderFakeAnthropicAnswer,
} from "./fake-anthropic-messages.ts";
import type { FakeFineTuning } from "./fake-fine-tuning.ts";
import { resolveFakeLogprobs, toWireLogprobs } from "./fake-openai-logprobs.ts";
import {
  errorBody,
  type FakeReply,
  type FakeResponder,
  isFakeReply,
} from "./fake-openai-replies.ts";
import type { FaultInjector } from "./fault-injector.ts";
import { type FakeOpenAIRequest, parseFakeOpenAIRequest } from "./parse-fake-openai-request.ts";
import { renderFakeOpenAIAnswer } from "./render-fake-openai-answer.ts";

/** Which route a request hit. */
export type Endpoint =
  | FakeOpenAIRequest["endpoint"]
  | "models"
  | "fine_tuning.jobs"
  | "fine_tuning.checkpoints"
  | "unknown";

/**
 * What the server does with a request, once decided: answer it, drop the connection, or
 * never answer.
 */
export type Outcome =
  | { kind: "drop" }
  | { kind: "hang" }
  | {
      kind: "send";
      status: number;
      contentType: string;
      body: string;
      headers: Record<string, string>;
      /** Estimated tokens to count, for successful model answers. */
      usage: { inputTokens: number; outputTokens: number } | null;
      /**
       * A broken answer: `"cut"` sends the headers and the first `cutAfterBytes` bytes of the
       * body, then destroys the connection; `"not-json"` is a 200 whose body is not JSON.
       */
      fault?: { kind: "cut"; afterBytes: number } | { kind: "not-json" };
    };

/** An outcome that answers, possibly broken. */
export type SentOutcome = Extract<Outcome, { kind: "send" }>;

const PROXY_ERROR_PAGE =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
  "<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n";

/** The server's script and record, which answering a request reads and advances. */
export interface FakeOpenAIScript {
  queue: Array<FakeReply | FakeResponder>;
  respond: FakeResponder | undefined;
  requests: FakeOpenAIRequest[];
  /** Model calls answered so far: makes ids unique and repeatable. */
  sequence: number;
  /** Seeded random faults, drawn before the queue and the responder are consulted. */
  faults: FaultInjector | undefined;
  /** Fine-tuning jobs: their routes, and the answers of their checkpoints' models. */
  fineTuning: FakeFineTuning;
}

const TOKENS_PER_IMAGE = 85;

/** An answer with a JSON body. */
export function jsonOutcome(options: {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}): SentOutcome {
  return {
    kind: "send",
    status: options.status,
    contentType: "application/json",
    body: JSON.stringify(options.body),
    headers: options.headers ?? {},
    usage: null,
  };
}

function invalidRequest(options: {
  status?: number;
  message: string;
  param?: string | null;
  /** Anthropic's error body instead of OpenAI's. */
  anthropic?: boolean;
}): Outcome {
  const status = options.status ?? 400;
  const body = options.anthropic
    ? anthropicErrorBody({ status, message: options.message })
    : errorBody({ status, message: options.message, param: options.param ?? null });
  return jsonOutcome({ status, body });
}

/**
 * Decides the answer to one request under `/v1`: validates and records model calls, takes the
 * next scripted reply (or asks the responder, or gives the default answer) and shapes the answer.
 */
export async function answerFakeOpenAIRequest(options: {
  script: FakeOpenAIScript;
  endpoint: Endpoint;
  body: Buffer | null;
  /** The request's headers (lower-case names), as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  method: string;
  pathname: string;
  /** For a line of a batch: the batch's id. */
  batchId?: string;
  /** The query string's parameters (the fine-tuning routes page with them). */
  query?: URLSearchParams;
}): Promise<Outcome> {
  const { script, endpoint, body } = options;
  if (endpoint === "fine_tuning.jobs" || endpoint === "fine_tuning.checkpoints") {
    const answered = script.fineTuning.answerRoute({
      pathname: options.pathname,
      query: options.query ?? new URLSearchParams(),
    });
    return jsonOutcome(answered);
  }
  if (endpoint === "unknown") {
    const message = `Invalid URL (${options.method} ${options.pathname})`;
    return invalidRequest({ status: 404, message });
  }
  if (endpoint === "models") {
    const seen = script.requests.map((request) => request.model);
    const data = [...new Set(["gpt-4.1", ...seen])].map((id) => ({
      id,
      object: "model",
      created: 1744316542,
      owned_by: "system",
    }));
    return jsonOutcome({ status: 200, body: { object: "list", data } });
  }
  const anthropic = endpoint === "messages";
  if (body === null) {
    return invalidRequest({ status: 413, message: "The request body is too large.", anthropic });
  }
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(body.toString("utf8"));
  } catch {
    return invalidRequest({
      anthropic,
      message:
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't " +
        "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was " +
        "sent was not valid JSON.)",
    });
  }
  const headers = redactHeaders(options.headers);
  const parsed = anthropic
    ? parseFakeAnthropicRequest({ body: parsedBody, headers })
    : parseFakeOpenAIRequest({ endpoint, body: parsedBody, headers });
  if (!parsed.ok) {
    return invalidRequest({ message: parsed.message, param: parsed.param, anthropic });
  }
  if (anthropic && parsed.request.stream) {
    return invalidRequest({
      message: "The fake server answers Anthropic messages without streaming: leave stream out.",
      param: "stream",
      anthropic,
    });
  }
  const request: FakeOpenAIRequest =
    options.batchId === undefined
      ? parsed.request
      : { ...parsed.request, batchId: options.batchId };
  if (request.batchId !== undefined && request.stream) {
    return invalidRequest({ message: "Streaming is not supported in batches.", param: "stream" });
  }
  script.requests.push(request);
  script.sequence++;
  const chosen =
    script.faults?.draw(request) ??
    (await chooseReply({
      next: script.fineTuning.replyFor(request) ?? script.queue.shift() ?? script.respond,
      request,
    }));
  return answer({ request, chosen, sequence: script.sequence });
}

function redactHeaders(
  given: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  if ("authorization" in headers) headers.authorization = "Bearer ***";
  // Azure and Anthropic-style clients carry the key here instead.
  for (const name of ["api-key", "x-api-key"]) if (name in headers) headers[name] = "***";
  return headers;
}

async function chooseReply(options: {
  next: FakeReply | FakeResponder | undefined;
  request: FakeOpenAIRequest;
}): Promise<FakeReply> {
  const { next } = options;
  const chosen = typeof next === "function" ? await next(options.request) : next;
  if (chosen === undefined) return { kind: "fill" };
  if (!isFakeReply(chosen)) {
    throw new Error(
      `a reply or responder gave ${JSON.stringify(chosen)}, which is not a FakeReply: use reply.json(), reply.text(), reply.error()…`,
    );
  }
  return chosen;
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function answer(options: {
  request: FakeOpenAIRequest;
  chosen: FakeReply;
  sequence: number;
}): Outcome {
  const { request, chosen } = options;
  switch (chosen.kind) {
    case "drop":
    case "hang":
      return { kind: chosen.kind };
    case "not-json":
      return {
        kind: "send",
        status: 200,
        contentType: chosen.contentType ?? "text/html; charset=utf-8",
        body: chosen.body ?? PROXY_ERROR_PAGE,
        headers: {},
        usage: null,
        fault: { kind: "not-json" },
      };
    case "error": {
      if (!Number.isInteger(chosen.status) || chosen.status < 100 || chosen.status > 599) {
        throw new Error(`reply.error() needs an HTTP status from 100 to 599, got ${chosen.status}`);
      }
      const headers: Record<string, string> = { ...chosen.headers };
      if (chosen.retryAfterSeconds !== undefined) {
        headers["retry-after"] = String(chosen.retryAfterSeconds);
      }
      const body =
        request.endpoint === "messages"
          ? anthropicErrorBody({ status: chosen.status, message: chosen.message })
          : errorBody(chosen);
      return jsonOutcome({ status: chosen.status, body, headers });
    }
    default: {
      // A cut answer is the default answer, broken off on the wire.
      const content =
        chosen.kind === "json"
          ? (JSON.stringify(chosen.value) ?? "null")
          : chosen.kind === "text"
            ? chosen.text
            : JSON.stringify(
                request.jsonSchema === null
                  ? {}
                  : defaultAnswer(request.jsonSchema, request.prompt),
              );
      const usage = {
        inputTokens: estimateTokens(request.prompt) + TOKENS_PER_IMAGE * request.images.length,
        outputTokens: estimateTokens(content),
      };
      const render =
        request.endpoint === "messages" ? renderFakeAnthropicAnswer : renderFakeOpenAIAnswer;
      // Only a message's text has token log-probabilities, not a tool call's arguments.
      const logprobs =
        request.topLogprobs === undefined || request.responseFormat === "tool"
          ? undefined
          : toWireLogprobs(
              resolveFakeLogprobs({
                content,
                script:
                  chosen.kind === "json" || chosen.kind === "text" ? chosen.logprobs : undefined,
              }),
              request.topLogprobs,
            );
      const rendered = render({
        request,
        content,
        logprobs,
        finishReason:
          chosen.kind === "json" || chosen.kind === "text" ? chosen.finishReason : undefined,
        ...usage,
        sequence: options.sequence,
        createdAt: Math.floor(Date.now() / 1000),
      });
      if (chosen.kind === "cut") {
        const afterBytes = chosen.afterBytes ?? 0;
        return {
          kind: "send",
          status: 200,
          ...rendered,
          headers: {},
          usage: null,
          fault: { kind: "cut", afterBytes },
        };
      }
      return { kind: "send", status: 200, ...rendered, headers: {}, usage };
    }
  }
}
