import type { WireTokenLogprob } from "./fake-openai-logprobs.ts";
import type { FakeFinishReason } from "./fake-openai-replies.ts";
import type { FakeOpenAIRequest } from "./parse-fake-openai-request.ts";

/** A successful answer, before it is shaped for its endpoint. */
export interface FakeOpenAIAnswer {
  request: FakeOpenAIRequest;
  /** The message content, or the tool call's arguments when the request asked for a tool. */
  content: string;
  inputTokens: number;
  outputTokens: number;
  /** Per-server counter that makes ids unique and repeatable. */
  sequence: number;
  /** Unix seconds. */
  createdAt: number;
  /** Why the model stopped; `undefined` is a normal stop. */
  finishReason?: FakeFinishReason | undefined;
  /** The content's tokens, when the request asked for their log-probabilities. */
  logprobs?: WireTokenLogprob[] | undefined;
}

/** An HTTP body ready to send. */
export interface RenderedAnswer {
  contentType: string;
  body: string;
}

type Json = Record<string, unknown>;

/**
 * Shapes an answer exactly as OpenAI does for the request's endpoint: a `response` object or a
 * `chat.completion`, or their server-sent events when the request asked for `stream: true`.
 */
export function renderFakeOpenAIAnswer(answer: FakeOpenAIAnswer): RenderedAnswer {
  const { request } = answer;
  if (request.endpoint === "responses") {
    return request.stream
      ? { contentType: "text/event-stream", body: responseEvents(answer) }
      : {
          contentType: "application/json",
          body: JSON.stringify(responseObject({ answer, status: finalStatus(answer) })),
        };
  }
  return request.stream
    ? { contentType: "text/event-stream", body: chatChunks(answer) }
    : { contentType: "application/json", body: JSON.stringify(chatCompletion(answer)) };
}

function makeId(options: { prefix: string; sequence: number }): string {
  return `${options.prefix}${options.sequence.toString(16).padStart(32, "0")}`;
}

/** Splits content as a model streams it: several deltas, never inside a code point. */
function pieces(text: string): string[] {
  const characters = Array.from(text);
  const result: string[] = [];
  for (let index = 0; index < characters.length; index += 16) {
    result.push(characters.slice(index, index + 16).join(""));
  }
  return result;
}

/** The text's deltas: one per token with its logprobs when they were asked for, else pieces. */
function textDeltas(
  answer: FakeOpenAIAnswer,
): Array<{ delta: string; logprobs?: WireTokenLogprob[] }> {
  const { logprobs } = answer;
  if (logprobs === undefined) return pieces(answer.content).map((delta) => ({ delta }));
  return logprobs.map((token) => ({ delta: token.token, logprobs: [token] }));
}

function isToolCall(request: FakeOpenAIRequest): request is FakeOpenAIRequest & {
  toolName: string;
} {
  return request.responseFormat === "tool" && request.toolName !== null;
}

function responseOutputItem(answer: FakeOpenAIAnswer): Json {
  const { request, sequence, content } = answer;
  if (isToolCall(request)) {
    return {
      type: "function_call",
      id: makeId({ prefix: "fc_", sequence }),
      call_id: makeId({ prefix: "call_", sequence }),
      name: request.toolName,
      arguments: content,
      status: "completed",
    };
  }
  return {
    type: "message",
    id: makeId({ prefix: "msg_", sequence }),
    status: "completed",
    role: "assistant",
    content: [
      { type: "output_text", text: content, annotations: [], logprobs: answer.logprobs ?? [] },
    ],
  };
}

/** `incomplete` when the answer was cut off or filtered, as the Responses API says. */
function finalStatus(answer: FakeOpenAIAnswer): string {
  return answer.finishReason === undefined || answer.finishReason === "stop"
    ? "completed"
    : "incomplete";
}

function responseObject(options: { answer: FakeOpenAIAnswer; status: string }): Json {
  const { answer, status } = options;
  const { request, inputTokens, outputTokens } = answer;
  const body = request.body as Json;
  const completed = status === "completed" || status === "incomplete";
  return {
    id: makeId({ prefix: "resp_", sequence: answer.sequence }),
    object: "response",
    created_at: answer.createdAt,
    status,
    background: false,
    error: null,
    incomplete_details:
      status === "incomplete"
        ? {
            reason: answer.finishReason === "length" ? "max_output_tokens" : answer.finishReason,
          }
        : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: request.model,
    output: completed ? [responseOutputItem(answer)] : [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: body.store ?? true,
    temperature: request.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage: completed
      ? {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + outputTokens,
        }
      : null,
    user: null,
    metadata: {},
  };
}

function responseEvents(answer: FakeOpenAIAnswer): string {
  const events: Json[] = [];
  const inProgress = responseObject({ answer, status: "in_progress" });
  events.push({ type: "response.created", response: inProgress });
  events.push({ type: "response.in_progress", response: inProgress });
  const item = responseOutputItem(answer);
  const itemId = item.id;
  const at = { item_id: itemId, output_index: 0 };
  if (item.type === "function_call") {
    events.push({
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, arguments: "", status: "in_progress" },
    });
    for (const delta of pieces(answer.content)) {
      events.push({ type: "response.function_call_arguments.delta", ...at, delta });
    }
    events.push({
      type: "response.function_call_arguments.done",
      ...at,
      arguments: answer.content,
    });
  } else {
    events.push({
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress", content: [] },
    });
    const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
    events.push({ type: "response.content_part.added", ...at, content_index: 0, part });
    for (const delta of textDeltas(answer)) {
      events.push({ type: "response.output_text.delta", ...at, content_index: 0, ...delta });
    }
    events.push({
      type: "response.output_text.done",
      ...at,
      content_index: 0,
      text: answer.content,
      ...(answer.logprobs === undefined ? {} : { logprobs: answer.logprobs }),
    });
    const done = { ...part, text: answer.content, logprobs: answer.logprobs ?? [] };
    events.push({ type: "response.content_part.done", ...at, content_index: 0, part: done });
  }
  events.push({ type: "response.output_item.done", output_index: 0, item });
  const status = finalStatus(answer);
  events.push({
    type: `response.${status}`,
    response: responseObject({ answer, status }),
  });
  return events
    .map((event, index) => {
      const data = JSON.stringify({ ...event, sequence_number: index });
      return `event: ${String(event.type)}\ndata: ${data}\n\n`;
    })
    .join("");
}

function chatUsage(answer: FakeOpenAIAnswer): Json {
  return {
    prompt_tokens: answer.inputTokens,
    completion_tokens: answer.outputTokens,
    total_tokens: answer.inputTokens + answer.outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/**
 * OpenAI quirk kept on purpose: a call forced by name finishes with "stop", one the model
 * chose (tool_choice "auto" or "required") with "tool_calls".
 */
function chatFinishReason(answer: FakeOpenAIAnswer): string {
  const { request } = answer;
  if (answer.finishReason !== undefined && answer.finishReason !== "stop") {
    return answer.finishReason;
  }
  if (!isToolCall(request)) return "stop";
  const choice = (request.body as Json).tool_choice;
  return typeof choice === "object" && choice !== null ? "stop" : "tool_calls";
}

function chatEnvelope(options: { answer: FakeOpenAIAnswer; object: string }): Json {
  const { answer, object } = options;
  return {
    id: makeId({ prefix: "chatcmpl-", sequence: answer.sequence }),
    object,
    created: answer.createdAt,
    model: answer.request.model,
    service_tier: "default",
    system_fingerprint: "fp_fake",
  };
}

function chatCompletion(answer: FakeOpenAIAnswer): Json {
  const { request, content, sequence } = answer;
  const message = isToolCall(request)
    ? {
        role: "assistant",
        content: null,
        refusal: null,
        annotations: [],
        tool_calls: [
          {
            id: makeId({ prefix: "call_", sequence }),
            type: "function",
            function: { name: request.toolName, arguments: content },
          },
        ],
      }
    : { role: "assistant", content, refusal: null, annotations: [] };
  return {
    ...chatEnvelope({ answer, object: "chat.completion" }),
    choices: [
      {
        index: 0,
        message,
        logprobs: chatLogprobs(answer.logprobs),
        finish_reason: chatFinishReason(answer),
      },
    ],
    usage: chatUsage(answer),
  };
}

function chatChunks(answer: FakeOpenAIAnswer): string {
  const { request, content, sequence } = answer;
  const envelope = chatEnvelope({ answer, object: "chat.completion.chunk" });
  const chunk = (options: {
    delta: Json;
    finishReason?: string;
    logprobs?: WireTokenLogprob[] | undefined;
  }): Json => ({
    ...envelope,
    choices: [
      {
        index: 0,
        delta: options.delta,
        logprobs: chatLogprobs(options.logprobs),
        finish_reason: options.finishReason ?? null,
      },
    ],
  });
  const chunks: Json[] = [];
  if (isToolCall(request)) {
    const call = {
      index: 0,
      id: makeId({ prefix: "call_", sequence }),
      type: "function",
      function: { name: request.toolName, arguments: "" },
    };
    chunks.push(
      chunk({ delta: { role: "assistant", content: null, tool_calls: [call], refusal: null } }),
    );
    for (const piece of pieces(content)) {
      chunks.push(chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] } }));
    }
  } else {
    chunks.push(chunk({ delta: { role: "assistant", content: "", refusal: null } }));
    for (const { delta, logprobs } of textDeltas(answer)) {
      chunks.push(chunk({ delta: { content: delta }, logprobs }));
    }
  }
  chunks.push(chunk({ delta: {}, finishReason: chatFinishReason(answer) }));
  const body = request.body as Json;
  const streamOptions = body.stream_options;
  const includeUsage =
    typeof streamOptions === "object" &&
    streamOptions !== null &&
    "include_usage" in streamOptions &&
    streamOptions.include_usage === true;
  if (includeUsage) chunks.push({ ...envelope, choices: [], usage: chatUsage(answer) });
  return `${chunks.map((item) => `data: ${JSON.stringify(item)}\n\n`).join("")}data: [DONE]\n\n`;
}

/** A choice's `logprobs`: the content's tokens, or `null` when none were asked for. */
function chatLogprobs(tokens: WireTokenLogprob[] | undefined): Json | null {
  return tokens === undefined ? null : { content: tokens, refusal: null };
}
