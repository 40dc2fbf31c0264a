import type { LanguageModel, OutputInterface, UserContent } from "ai";
import { imagePlaceholder, loadImage } from "../test-case/image.ts";
import { AiSdkJudgeBatch } from "./ai-sdk-batch.ts";
import { batchFamilyOf } from "./find-batch-interface.ts";
import { languageModelEndpoint } from "./judge-endpoint.ts";
import type { JudgeBatchApi, JudgeModel, JudgeOutput, JudgeRequest } from "./judge-model.ts";
import { readOpenAILogprobs, takesOpenAILogprobs } from "./openai-logprobs.ts";
import { registerModelSecrets } from "./register-model-secrets.ts";
import { isStrictCompatible } from "./strict-json-schema.ts";
import {
  costOfUsage,
  findModelPrice,
  type ModelPrice,
  type ModelPrices,
} from "./usage-and-cost.ts";

/** An AI SDK language model object, e.g. `openai("gpt-4.1")` or `anthropic("claude-sonnet-4-5")`. */
export type AiSdkLanguageModel = Exclude<LanguageModel, string>;

/**
 * How a judge asks for JSON, best first: native JSON-schema output, JSON mode (any JSON),
 * plain text. A judge starts at the first and steps down when its provider rejects one.
 */
export type StructuredOutputMode = "json-schema" | "json" | "text";

const MODES: readonly StructuredOutputMode[] = ["json-schema", "json", "text"];

/** The AI SDK's module, which a judge loads on its first call (see {@link AiSdkJudge.generate}). */
type AiSdk = typeof import("ai");

/** Options of {@link createJudge}. */
export interface CreateJudgeOptions {
  /** The AI SDK language model that judges. */
  model: AiSdkLanguageModel;
  /**
   * Shown as `evaluationModel` and part of every cache key.
   * @default "<provider>:<modelId>", e.g. "openai:gpt-4.1"
   */
  name?: string | undefined;
  /**
   * Sampling temperature; `null` never sends one.
   * @default 0, or none for models that reject it (o1, o3, o4, gpt-5 families)
   */
  temperature?: number | null | undefined;
  /** Prices that override or extend the built-in price table, for `costUsd`. */
  prices?: ModelPrices | undefined;
  /**
   * Whether the model can see images.
   * @default true for gpt-4o*, gpt-4.1*, gpt-5*, o3, o4-mini, claude-* and gemini-*; false otherwise
   */
  supportsImages?: boolean | undefined;
  /**
   * More values to mask in everything verdict writes (store, cache, reports, console, error
   * messages), e.g. a key a custom `fetch` adds. The key the model itself sends
   * (`createOpenAI({ apiKey })`, any provider's key header) is found and masked without this.
   * @default []
   */
  secrets?: readonly string[] | undefined;
}

/**
 * A {@link JudgeModel} backed by an AI SDK language model. It asks for native structured
 * output and falls back to JSON mode, then to plain text, when the provider rejects it,
 * remembering what worked. It never retries failed calls itself (the transport does) and
 * returns the raw text, which verdict parses leniently. The key the model sends is registered
 * with the redactor, so it is masked wherever a provider echoes it.
 */
export class AiSdkJudge implements JudgeModel {
  readonly name: string;
  readonly supportsImages: boolean;
  readonly model: AiSdkLanguageModel;
  /**
   * The model's base URL (scheme, host, port and path; never credentials or a query), part of
   * every cache key; `null` when the provider does not say.
   */
  readonly endpoint: string | null;
  readonly #price: ModelPrice | null;
  #mode: StructuredOutputMode = "json-schema";
  #temperature: number | undefined;
  /** Whether the model can give token log-probabilities when a request asks for them. */
  readonly #givesLogprobs: boolean;
  #batch: JudgeBatchApi | null | undefined;

  constructor(options: CreateJudgeOptions) {
    const { model } = options;
    const providerPrefix = model.provider.split(".")[0] ?? model.provider;
    const modelId = bareModelId(model.modelId);
    this.model = model;
    // Before anything can fail or be written: a provider may echo the key in any error.
    registerModelSecrets(model, options.secrets);
    this.name = options.name ?? `${providerPrefix}:${model.modelId}`;
    this.endpoint = languageModelEndpoint(model);
    this.supportsImages = options.supportsImages ?? isVisionModel(modelId);
    this.#temperature =
      options.temperature === undefined
        ? rejectsTemperature(modelId)
          ? undefined
          : 0
        : (options.temperature ?? undefined);
    // Reasoning models give none (the AI SDK drops the option with a warning on every call).
    this.#givesLogprobs = takesOpenAILogprobs(model) && !rejectsTemperature(modelId);
    this.#price = findModelPrice({
      modelId: `${providerPrefix}:${model.modelId}`,
      prices: options.prices,
    });
  }

  /** How the next call asks for JSON: what the provider accepted so far. */
  get structuredOutputMode(): StructuredOutputMode {
    return this.#mode;
  }

  /**
   * Whether the model gives token log-probabilities when a request asks for them
   * (`topLogprobs`): OpenAI's and Azure's models, not the reasoning ones (o1, o3, o4, gpt-5).
   */
  get givesLogprobs(): boolean {
    return this.#givesLogprobs;
  }

  /**
   * The model's price per million tokens: from verdict's price table, or the `prices` given;
   * `null` when unknown (its calls' cost is then unknown too).
   */
  get price(): ModelPrice | null {
    return this.#price === null ? null : { ...this.#price };
  }

  /** The temperature sent, `undefined` when none is. */
  get temperature(): number | undefined {
    return this.#temperature;
  }

  /**
   * The provider's batch API (OpenAI Batch, Anthropic Message Batches) for this model, used by
   * `evaluate({ batch: true })`; `null` for other providers (Google, Azure, Ollama, an
   * OpenAI-compatible server, a provider given another `name`), whose requests go directly.
   */
  get batch(): JudgeBatchApi | null {
    if (this.#batch === undefined) {
      const family = batchFamilyOf(this.model);
      this.#batch =
        family === null ? null : new AiSdkJudgeBatch({ judge: this, family, price: this.#price });
    }
    return this.#batch;
  }

  /**
   * Answers one request with the model's raw text, usage and cost. The AI SDK is loaded on the
   * first call, so that `import "verdict"` (and `createJudge`) never loads it.
   */
  async generate(request: JudgeRequest): Promise<JudgeOutput> {
    const content = await userContent(request);
    const ai = await import("ai");
    for (;;) {
      const mode = this.#mode;
      const temperature = this.#temperature;
      try {
        return await this.#call({ ai, request, content, mode, temperature });
      } catch (error) {
        if (temperature !== undefined && isTemperatureRejection(ai, error)) {
          this.#temperature = undefined;
          continue;
        }
        if (mode !== "text" && isStructuredOutputRejection(ai, error)) {
          // Concurrent calls may have stepped down already: never step back up.
          const next = MODES.indexOf(mode) + 1;
          this.#mode = MODES[Math.max(next, MODES.indexOf(this.#mode))] ?? "text";
          continue;
        }
        throw error;
      }
    }
  }

  async #call(options: {
    ai: AiSdk;
    request: JudgeRequest;
    content: UserContent;
    mode: StructuredOutputMode;
    temperature: number | undefined;
  }): Promise<JudgeOutput> {
    const { request, mode, temperature } = options;
    let structuredText: string | undefined;
    const output: OutputInterface<string, string, never> = {
      name: `verdict-${mode}`,
      responseFormat: Promise.resolve(
        mode === "json-schema"
          ? { type: "json", schema: request.jsonSchema, name: "answer" }
          : { type: mode },
      ),
      // Return the text untouched: verdict parses and repairs it, so bad JSON never throws here.
      async parseCompleteOutput({ text }) {
        structuredText = text;
        return text;
      },
      async parsePartialOutput({ text }) {
        return { partial: text };
      },
      createElementStreamTransform() {
        return undefined;
      },
    };
    const result = await options.ai.generateText({
      model: this.model,
      messages: [{ role: "user", content: options.content }],
      output,
      maxRetries: 0,
      ...(temperature === undefined ? {} : { temperature }),
      ...(request.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: request.maxOutputTokens }),
      ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
      ...this.#providerOptions(request, mode),
    });
    // The AI SDK's unified reason ("length" for OpenAI's "length"/"max_output_tokens",
    // Anthropic's "max_tokens", Google's "MAX_TOKENS"), so a cut-off answer is asked again.
    const answer: JudgeOutput = {
      text: structuredText ?? result.text,
      finishReason: result.finishReason,
    };
    if (request.topLogprobs !== undefined && this.#givesLogprobs) {
      const logprobs = readOpenAILogprobs(result.providerMetadata);
      if (logprobs !== undefined) answer.logprobs = logprobs;
    }
    const { inputTokens, outputTokens } = result.usage;
    if (inputTokens !== undefined && outputTokens !== undefined) {
      const usage = { inputTokens, outputTokens };
      answer.usage = usage;
      const costUsd = costOfUsage({ usage, price: this.#price });
      if (costUsd !== null) answer.costUsd = costUsd;
    }
    return answer;
  }

  /**
   * OpenAI's options of a call: a strict JSON schema when it fits, and the answer's token
   * log-probabilities when the request asks for them and the model can give them (see
   * `givesLogprobs`). Azure's Responses models read them under `azure` (and take the first
   * namespace they find), so Azure gets the same options under both.
   */
  #providerOptions(
    request: JudgeRequest,
    mode: StructuredOutputMode,
  ): { providerOptions?: { [provider: string]: { [option: string]: boolean | number } } } {
    const openai = {
      ...(mode === "json-schema"
        ? { strictJsonSchema: isStrictCompatible(request.jsonSchema) }
        : {}),
      ...(request.topLogprobs !== undefined && this.#givesLogprobs
        ? { logprobs: request.topLogprobs }
        : {}),
    };
    if (Object.keys(openai).length === 0) return {};
    const azure = "logprobs" in openai && this.model.provider.startsWith("azure");
    return { providerOptions: azure ? { openai, azure: openai } : { openai } };
  }
}

/**
 * Makes a judge from an AI SDK language model.
 * @example
 * import { openai } from "@ai-sdk/openai";
 * const judge = createJudge({ model: openai("gpt-4.1-mini") });
 * const metric = new ToxicityMetric({ model: judge });
 */
export function createJudge(options: CreateJudgeOptions): AiSdkJudge {
  return new AiSdkJudge(options);
}

/** The prompt text, then each image after an `[image N]:` label: a request as one user message. */
export async function userContent(request: JudgeRequest): Promise<UserContent> {
  const images = await Promise.all((request.images ?? []).map((part) => loadImage(part)));
  const content: Exclude<UserContent, string> = [{ type: "text", text: request.prompt }];
  images.forEach((loaded, index) => {
    content.push({ type: "text", text: `${imagePlaceholder(index + 1)}:` });
    // ai 7 deprecates `image` parts: a `file` part with an image media type is the same image.
    content.push(
      loaded.kind === "bytes"
        ? { type: "file", data: loaded.data, mediaType: loaded.mediaType }
        : { type: "file", data: loaded.url, mediaType: loaded.mediaType ?? "image" },
    );
  });
  return content;
}

function bareModelId(modelId: string): string {
  return modelId.toLowerCase().replace(/^models\//, "");
}

function rejectsTemperature(modelId: string): boolean {
  return /^(o1|o3|o4|gpt-5)/.test(modelId);
}

function isVisionModel(modelId: string): boolean {
  return /^(gpt-4o|gpt-4\.1|gpt-5|o3(?:$|-\d|-pro)|o4-mini|claude-|gemini-)/.test(modelId);
}

/** The text of a provider rejection (HTTP 400/422), or `null` for any other error. */
function rejectionText(ai: AiSdk, error: unknown): string | null {
  if (!ai.APICallError.isInstance(error)) return null;
  if (error.statusCode !== 400 && error.statusCode !== 422) return null;
  return `${error.message} ${error.responseBody ?? ""}`;
}

function isTemperatureRejection(ai: AiSdk, error: unknown): boolean {
  return /temperature/i.test(rejectionText(ai, error) ?? "");
}

function isStructuredOutputRejection(ai: AiSdk, error: unknown): boolean {
  if (ai.UnsupportedFunctionalityError.isInstance(error)) {
    return /response.?format|json|schema|structured/i.test(error.message);
  }
  const text = rejectionText(ai, error);
  if (text === null) return false;
  return (
    /response_?format|json_?schema|json schema|json_object|json mode|structured|schema/i.test(
      text,
    ) ||
    (/not supported|unsupported/i.test(text) && !/temperature|image/i.test(text))
  );
}
