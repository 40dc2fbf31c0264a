/** One model call the fake OpenAI server received, as a test would check it. */
export interface FakeOpenAIRequest {
  /**
   * Which API was called: `POST /v1/responses`, `POST /v1/chat/completions`, or Anthropic's
   * `POST /v1/messages` (the fake server answers the Anthropic Messages API too).
   */
  endpoint: "responses" | "chat.completions" | "messages";
  model: string;
  /** All text of all input messages (instructions, system, user, assistant, tool), joined by "\n". */
  prompt: string;
  /** Every image part, as its URL (http(s) or `data:`), in order; `file_id` images as their id. */
  images: string[];
  /** What kind of answer was asked for; `"tool"` when the answer will be a function call. */
  responseFormat: "json_schema" | "json_object" | "text" | "tool";
  /** The JSON schema asked for: the `json_schema` format's, or the called tool's parameters. */
  jsonSchema: Record<string, unknown> | null;
  /** Name of the function the answer calls, when `responseFormat` is `"tool"`. */
  toolName: string | null;
  temperature: number | null;
  /**
   * How many candidates per token the request asked for with the answer's token
   * log-probabilities (Chat: `logprobs: true` and `top_logprobs`; Responses: `top_logprobs` and
   * `include: ["message.output_text.logprobs"]`), 0 for the tokens alone; absent when it asked
   * for none. The answer then carries them (see `FakeLogprobs`).
   */
  topLogprobs?: number;
  /** Whether the client asked for server-sent events (`stream: true`). */
  stream: boolean;
  /** The raw parsed request body. */
  body: unknown;
  /** Request headers (lower-case names), with `authorization` redacted to `Bearer ***`. */
  headers: Record<string, string>;
  /** The batch the request came in as a line of, when it did (`POST /v1/batches`). */
  batchId?: string;
}

/** What {@link parseFakeOpenAIRequest} makes of a body: a request, or why it is not one. */
export type ParsedFakeOpenAIRequest =
  | { ok: true; request: FakeOpenAIRequest }
  | { ok: false; message: string; param: string | null };

type Json = Record<string, unknown>;

/**
 * Reads a parsed Responses or Chat Completions body into a {@link FakeOpenAIRequest}, or
 * says which required field is missing, as OpenAI's 400 would.
 */
export function parseFakeOpenAIRequest(options: {
  endpoint: "responses" | "chat.completions";
  body: unknown;
  headers: Record<string, string>;
}): ParsedFakeOpenAIRequest {
  const { endpoint, body, headers } = options;
  if (!isObject(body)) {
    return { ok: false, message: "The request body must be a JSON object.", param: null };
  }
  if (typeof body.model !== "string" || body.model === "") {
    return { ok: false, message: "You must provide a model parameter.", param: "model" };
  }
  if (endpoint === "chat.completions" && !Array.isArray(body.messages)) {
    return { ok: false, message: "Missing required parameter: 'messages'.", param: "messages" };
  }
  const texts: string[] = [];
  const images: string[] = [];
  if (endpoint === "responses") {
    if (typeof body.instructions === "string") texts.push(body.instructions);
    readResponsesInput({ input: body.input, texts, images });
  } else {
    for (const message of body.messages as unknown[]) readChatMessage({ message, texts, images });
  }
  const format = readFormat({ endpoint, body });
  const logprobs = readLogprobs({ endpoint, body });
  if (logprobs !== null && typeof logprobs === "object") return logprobs;
  return {
    ok: true,
    request: {
      endpoint,
      model: body.model,
      prompt: texts.join("\n"),
      images,
      ...format,
      temperature: typeof body.temperature === "number" ? body.temperature : null,
      ...(logprobs === null ? {} : { topLogprobs: logprobs }),
      stream: body.stream === true,
      body,
      headers,
    },
  };
}

/**
 * The candidates per token asked for, `null` for no logprobs, or OpenAI's 400 for a
 * `top_logprobs` out of 0–20 or, in Chat, one without `logprobs: true`.
 */
function readLogprobs(options: {
  endpoint: "responses" | "chat.completions";
  body: Json;
}): number | null | ParsedFakeOpenAIRequest {
  const { endpoint, body } = options;
  const top = body.top_logprobs;
  if (top !== undefined && top !== null) {
    if (typeof top !== "number" || !Number.isInteger(top) || top < 0 || top > 20) {
      const message = `Invalid 'top_logprobs': expected an integer between 0 and 20, got ${JSON.stringify(top)}.`;
      return { ok: false, message, param: "top_logprobs" };
    }
  }
  const count = typeof top === "number" ? top : 0;
  if (endpoint === "chat.completions") {
    if (body.logprobs === true) return count;
    if (typeof top !== "number") return null;
    const message = "Invalid value for 'top_logprobs': 'logprobs' must be set to true.";
    return { ok: false, message, param: "top_logprobs" };
  }
  const include = Array.isArray(body.include) ? body.include : [];
  return include.includes("message.output_text.logprobs") ? count : null;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readResponsesInput(options: { input: unknown; texts: string[]; images: string[] }): void {
  const { input, texts, images } = options;
  if (typeof input === "string") {
    texts.push(input);
    return;
  }
  if (!Array.isArray(input)) return;
  for (const item of input) {
    if (!isObject(item)) continue;
    if (typeof item.content === "string") texts.push(item.content);
    if (Array.isArray(item.content)) {
      for (const part of item.content) {
        if (!isObject(part)) continue;
        if (typeof part.text === "string") texts.push(part.text);
        if (part.type === "input_image") {
          const url = typeof part.image_url === "string" ? part.image_url : part.file_id;
          if (typeof url === "string") images.push(url);
        }
      }
    }
    // Tool results sent back in a multi-step call are input too.
    if (item.type === "function_call_output" && typeof item.output === "string") {
      texts.push(item.output);
    }
  }
}

function readChatMessage(options: { message: unknown; texts: string[]; images: string[] }): void {
  const { message, texts, images } = options;
  if (!isObject(message)) return;
  if (typeof message.content === "string") texts.push(message.content);
  if (!Array.isArray(message.content)) return;
  for (const part of message.content) {
    if (!isObject(part)) continue;
    if (typeof part.text === "string") texts.push(part.text);
    if (part.type === "image_url") {
      const imageUrl = part.image_url;
      const url = isObject(imageUrl) ? imageUrl.url : imageUrl;
      if (typeof url === "string") images.push(url);
    }
  }
}

type Format = Pick<FakeOpenAIRequest, "responseFormat" | "jsonSchema" | "toolName">;

/**
 * A forced tool choice (`"required"` or a named function) wins; with `"auto"`, a requested
 * JSON format wins over the tools, as a model asked for both ends with the structured answer.
 */
function readFormat(options: { endpoint: "responses" | "chat.completions"; body: Json }): Format {
  const { endpoint, body } = options;
  const tools = readFunctionTools({ endpoint, tools: body.tools });
  const choice = body.tool_choice;
  const forcedName = isObject(choice) ? readChoiceName({ endpoint, choice }) : null;
  const forced = choice === "required" || forcedName !== null;
  const wanted = tools.find((tool) => tool.name === forcedName) ?? tools[0];
  const toolFormat: Format | null =
    wanted === undefined
      ? null
      : { responseFormat: "tool", jsonSchema: wanted.parameters, toolName: wanted.name };
  if (toolFormat !== null && forced) return toolFormat;

  const text = isObject(body.text) ? body.text : {};
  const format = endpoint === "responses" ? text.format : body.response_format;
  if (isObject(format) && format.type === "json_schema") {
    const holder = endpoint === "responses" ? format : format.json_schema;
    const schema = isObject(holder) && isObject(holder.schema) ? holder.schema : null;
    return { responseFormat: "json_schema", jsonSchema: schema, toolName: null };
  }
  if (isObject(format) && format.type === "json_object") {
    return { responseFormat: "json_object", jsonSchema: null, toolName: null };
  }
  if (toolFormat !== null && choice !== "none") return toolFormat;
  return { responseFormat: "text", jsonSchema: null, toolName: null };
}

function readFunctionTools(options: {
  endpoint: "responses" | "chat.completions";
  tools: unknown;
}): Array<{ name: string; parameters: Record<string, unknown> | null }> {
  if (!Array.isArray(options.tools)) return [];
  const found: Array<{ name: string; parameters: Record<string, unknown> | null }> = [];
  for (const tool of options.tools) {
    if (!isObject(tool) || tool.type !== "function") continue;
    // Chat nests the function ({ type, function: { name, parameters } }); Responses does not.
    const definition = options.endpoint === "chat.completions" ? tool.function : tool;
    if (!isObject(definition) || typeof definition.name !== "string") continue;
    const parameters = isObject(definition.parameters) ? definition.parameters : null;
    found.push({ name: definition.name, parameters });
  }
  return found;
}

function readChoiceName(options: {
  endpoint: "responses" | "chat.completions";
  choice: Json;
}): string | null {
  const { choice } = options;
  if (choice.type !== "function") return null;
  const holder = options.endpoint === "chat.completions" ? choice.function : choice;
  return isObject(holder) && typeof holder.name === "string" ? holder.name : null;
}
