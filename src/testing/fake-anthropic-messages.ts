import type { FakeOpenAIRequest, ParsedFakeOpenAIRequest } from "./parse-fake-openai-request.ts";
import type { FakeOpenAIAnswer, RenderedAnswer } from "./render-fake-openai-answer.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads an Anthropic Messages body (`POST /v1/messages`, or a Message Batches request's
 * `params`) into a {@link FakeOpenAIRequest} of endpoint `"messages"`, or says which required
 * field is missing, as Anthropic's 400 would.
 */
export function parseFakeAnthropicRequest(options: {
  body: unknown;
  headers: Record<string, string>;
}): ParsedFakeOpenAIRequest {
  const { body, headers } = options;
  if (!isObject(body)) {
    return { ok: false, message: "The request body must be a JSON object.", param: null };
  }
  if (typeof body.model !== "string" || body.model === "") {
    return { ok: false, message: "model: Field required", param: "model" };
  }
  if (typeof body.max_tokens !== "number") {
    return { ok: false, message: "max_tokens: Field required", param: "max_tokens" };
  }
  if (!Array.isArray(body.messages)) {
    return { ok: false, message: "messages: Field required", param: "messages" };
  }
  const texts: string[] = [];
  const images: string[] = [];
  if (typeof body.system === "string") texts.push(body.system);
  if (Array.isArray(body.system)) readBlocks({ blocks: body.system, texts, images });
  for (const message of body.messages) {
    if (!isObject(message)) continue;
    if (typeof message.content === "string") texts.push(message.content);
    if (Array.isArray(message.content)) readBlocks({ blocks: message.content, texts, images });
  }
  return {
    ok: true,
    request: {
      endpoint: "messages",
      model: body.model,
      prompt: texts.join("\n"),
      images,
      ...readFormat(body),
      temperature: typeof body.temperature === "number" ? body.temperature : null,
      stream: body.stream === true,
      body,
      headers,
    },
  };
}

function readBlocks(options: { blocks: unknown[]; texts: string[]; images: string[] }): void {
  for (const block of options.blocks) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") options.texts.push(block.text);
    if (block.type === "image" && isObject(block.source)) {
      const source = block.source;
      if (source.type === "url" && typeof source.url === "string") options.images.push(source.url);
      if (source.type === "base64" && typeof source.data === "string") {
        options.images.push(`data:${String(source.media_type)};base64,${source.data}`);
      }
    }
  }
}

/** Native structured output (`output_config.format`), a forced tool (the JSON-tool fallback), or text. */
function readFormat(
  body: Json,
): Pick<FakeOpenAIRequest, "responseFormat" | "jsonSchema" | "toolName"> {
  const config = isObject(body.output_config) ? body.output_config : {};
  const format = isObject(config.format) ? config.format : null;
  if (format?.type === "json_schema") {
    const schema = isObject(format.schema) ? format.schema : null;
    return { responseFormat: "json_schema", jsonSchema: schema, toolName: null };
  }
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  const choice = isObject(body.tool_choice) ? body.tool_choice : null;
  const forced =
    choice?.type === "any"
      ? tools[0]
      : choice?.type === "tool"
        ? tools.find((tool) => tool.name === choice.name)
        : undefined;
  if (forced !== undefined && typeof forced.name === "string") {
    const schema = isObject(forced.input_schema) ? forced.input_schema : null;
    return { responseFormat: "tool", jsonSchema: schema, toolName: forced.name };
  }
  return { responseFormat: "text", jsonSchema: null, toolName: null };
}

/** A Messages answer as Anthropic shapes it: text, or a `tool_use` block for a forced tool. */
export function renderFakeAnthropicAnswer(answer: FakeOpenAIAnswer): RenderedAnswer {
  const { request, content, sequence } = answer;
  const id = (prefix: string) => `${prefix}${sequence.toString(16).padStart(24, "0")}`;
  const toolCall = request.responseFormat === "tool" && request.toolName !== null;
  let input: unknown = {};
  if (toolCall) {
    try {
      input = JSON.parse(content);
    } catch {
      input = {};
    }
  }
  const stopReason =
    answer.finishReason === "length"
      ? "max_tokens"
      : answer.finishReason === "content_filter"
        ? "refusal"
        : toolCall
          ? "tool_use"
          : "end_turn";
  const message = {
    id: id("msg_"),
    type: "message",
    role: "assistant",
    model: request.model,
    content: toolCall
      ? [{ type: "tool_use", id: id("toolu_"), name: request.toolName, input }]
      : [{ type: "text", text: content }],
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: answer.inputTokens, output_tokens: answer.outputTokens },
  };
  return { contentType: "application/json", body: JSON.stringify(message) };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/**
 * The JSON body of an Anthropic error, `{ type: "error", error: { type, message } }`, its type
 * from the status (OpenAI's error types and codes of a reply have no Anthropic meaning).
 */
export function anthropicErrorBody(options: {
  status: number;
  message?: string | undefined;
}): Json {
  const { status } = options;
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  const message =
    options.message ??
    (status >= 500 ? "Internal server error" : `Request failed with status ${status}.`);
  return { type: "error", error: { type, message } };
}
