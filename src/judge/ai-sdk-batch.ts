import { imagePlaceholder, loadImage } from "../test-case/image.ts";
import {
  type AiSdkBatchInterface,
  type AiSdkBatchItem,
  type AiSdkBatchStatus,
  type BatchFamily,
  findBatchInterface,
} from "./find-batch-interface.ts";
import type {
  JudgeBatchApi,
  JudgeBatchLine,
  JudgeBatchLineResult,
  JudgeBatchState,
  JudgeOutput,
  JudgeRequest,
} from "./judge-model.ts";
import { readOpenAILogprobs } from "./openai-logprobs.ts";
import { isStrictCompatible } from "./strict-json-schema.ts";
import { costOfBatchUsage, type ModelPrice } from "./usage-and-cost.ts";

/** How the judge asks for JSON now (see `AiSdkJudge.structuredOutputMode`). */
type Mode = "json-schema" | "json" | "text";

/** What a batch needs of the AI SDK judge it belongs to: its model, settings and price. */
export interface BatchingJudge {
  readonly name: string;
  readonly model: { provider: string; modelId: string };
  readonly structuredOutputMode: Mode;
  readonly temperature: number | undefined;
  /** Whether the model gives token log-probabilities when a request asks for them. */
  readonly givesLogprobs: boolean;
}

const MODES: readonly Mode[] = ["json-schema", "json", "text"];

// The providers' limits per batch: OpenAI 50,000 requests and 200 MB; Anthropic 100,000
// requests and 256 MB.
const LIMITS: Record<BatchFamily, { maxLines: number; maxBytes: number }> = {
  openai: { maxLines: 50_000, maxBytes: 200 * 1024 * 1024 },
  anthropic: { maxLines: 100_000, maxBytes: 256 * 1024 * 1024 },
};

/**
 * The batch API of an {@link AiSdkJudge} whose model is OpenAI's or Anthropic's: requests are
 * turned into the same request bodies the model sends directly (the AI SDK's own batch
 * interface prepares them: same prompt, temperature and structured-output JSON schema), and
 * answers come back as the model's raw text with usage and the cost at the batch price (50%).
 */
export class AiSdkJudgeBatch implements JudgeBatchApi {
  readonly provider: string;
  readonly maxLines: number;
  readonly maxBytes: number;
  readonly #judge: BatchingJudge;
  readonly #family: BatchFamily;
  readonly #price: ModelPrice | null;
  #api: Promise<AiSdkBatchInterface> | null = null;
  /** The best mode batches may use: lowered when the provider refuses one for batches only. */
  #batchMode: Mode = "json-schema";

  constructor(options: { judge: BatchingJudge; family: BatchFamily; price: ModelPrice | null }) {
    this.#judge = options.judge;
    this.#family = options.family;
    this.#price = options.price;
    this.provider = `${options.family}.batch`;
    this.maxLines = LIMITS[options.family].maxLines;
    this.maxBytes = LIMITS[options.family].maxBytes;
  }

  async start(options: {
    lines: readonly JudgeBatchLine[];
    signal?: AbortSignal | undefined;
  }): Promise<JudgeBatchState> {
    const api = await this.#interface();
    for (;;) {
      // What the judge learnt from direct calls holds for batches too, not the other way round.
      const mode =
        MODES[
          Math.max(MODES.indexOf(this.#judge.structuredOutputMode), MODES.indexOf(this.#batchMode))
        ] ?? "text";
      const requests = await Promise.all(
        options.lines.map(async (line) => ({
          id: line.id,
          type: "text" as const,
          modelId: this.#judge.model.modelId,
          options: await this.#callOptions(line.request, mode),
        })),
      );
      try {
        const started = await api.doStartBatch({ requests, abortSignal: options.signal });
        return toState(started.batchId, started);
      } catch (error) {
        // Anthropic batches cannot carry the JSON-tool fallback of models without native
        // structured output: ask for JSON in the prompt alone, as the judge would after a rejection.
        const { UnsupportedFunctionalityError } = await import("ai");
        if (mode !== "text" && UnsupportedFunctionalityError.isInstance(error)) {
          this.#batchMode = MODES[MODES.indexOf(mode) + 1] ?? "text";
          continue;
        }
        throw error;
      }
    }
  }

  async status(options: {
    batchId: string;
    signal?: AbortSignal | undefined;
  }): Promise<JudgeBatchState> {
    const api = await this.#interface();
    const status = await api.doGetBatchStatus({
      batchId: options.batchId,
      abortSignal: options.signal,
    });
    return toState(options.batchId, status);
  }

  async results(options: {
    batchId: string;
    signal?: AbortSignal | undefined;
  }): Promise<JudgeBatchLineResult[]> {
    const api = await this.#interface();
    const stream = await api.doGetBatchResults({
      batchId: options.batchId,
      abortSignal: options.signal,
    });
    const results: JudgeBatchLineResult[] = [];
    for await (const item of stream as unknown as AsyncIterable<AiSdkBatchItem>) {
      results.push(this.#toLineResult(item));
    }
    return results;
  }

  #interface(): Promise<AiSdkBatchInterface> {
    this.#api ??= this.#findInterface();
    return this.#api;
  }

  async #findInterface(): Promise<AiSdkBatchInterface> {
    const found = await findBatchInterface({ model: this.#judge.model, family: this.#family });
    if (found !== null) return found;
    // The AI SDK is loaded when a batch is used, never when verdict is imported.
    const { UnsupportedFunctionalityError } = await import("ai");
    throw new UnsupportedFunctionalityError({
      functionality: "batch",
      message: `Judge "${this.#judge.name}": this version of the provider package offers no batch interface verdict can use.`,
    });
  }

  async #callOptions(request: JudgeRequest, mode: Mode): Promise<Record<string, unknown>> {
    const temperature = this.#judge.temperature;
    // OpenAI's batch lines go to the Responses API, which takes the same options as a direct
    // call: a strict schema, and the answer's token logprobs (`top_logprobs` and `include`).
    const openai = {
      ...(mode === "json-schema"
        ? { strictJsonSchema: isStrictCompatible(request.jsonSchema) }
        : {}),
      ...(request.topLogprobs !== undefined && this.#judge.givesLogprobs
        ? { logprobs: request.topLogprobs }
        : {}),
    };
    return {
      prompt: [{ role: "user", content: await promptParts(request) }],
      ...(temperature === undefined ? {} : { temperature }),
      ...(request.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: request.maxOutputTokens }),
      ...(mode === "json-schema"
        ? { responseFormat: { type: "json", schema: request.jsonSchema, name: "answer" } }
        : mode === "json"
          ? { responseFormat: { type: "json" } }
          : {}),
      ...(Object.keys(openai).length === 0 ? {} : { providerOptions: { openai } }),
    };
  }

  #toLineResult(item: AiSdkBatchItem): JudgeBatchLineResult {
    if (item.status !== "succeeded") {
      return {
        id: item.id,
        status: item.status,
        error: {
          message: item.error?.message ?? `The request ${item.status} in the batch.`,
          statusCode: item.error?.statusCode ?? null,
          code: item.error?.code ?? null,
        },
      };
    }
    const { result } = item;
    const text = result.content
      .filter((part) => part.type === "text" && typeof part.text === "string")
      .map((part) => part.text)
      .join("");
    const answer: JudgeOutput = { text };
    // Present only for lines that asked for them: OpenAI includes them on request alone.
    const logprobs = readOpenAILogprobs(result.providerMetadata);
    if (logprobs !== undefined) answer.logprobs = logprobs;
    // The unified reason, as a direct call reports it ("length" for a cut-off answer).
    const finishReason = result.finishReason?.unified;
    if (finishReason !== undefined) answer.finishReason = finishReason;
    const inputTokens = result.usage?.inputTokens?.total;
    const outputTokens = result.usage?.outputTokens?.total;
    if (inputTokens !== undefined && outputTokens !== undefined) {
      const usage = { inputTokens, outputTokens };
      answer.usage = usage;
      const costUsd = costOfBatchUsage({ usage, price: this.#price });
      if (costUsd !== null) answer.costUsd = costUsd;
    }
    return { id: item.id, status: "answered", answer };
  }
}

function toState(batchId: string, status: AiSdkBatchStatus): JudgeBatchState {
  const counts = status.requestCounts;
  return {
    batchId,
    phase: status.status === "pending" ? "pending" : "ended",
    providerStatus: status.rawStatus ?? status.status,
    counts:
      counts === undefined
        ? null
        : { total: counts.total, completed: counts.completed, failed: counts.failed },
    error: status.error?.message ?? null,
  };
}

/** The prompt text, then each image after an `[image N]:` label, as a direct call sends them. */
async function promptParts(request: JudgeRequest): Promise<Array<Record<string, unknown>>> {
  const images = await Promise.all((request.images ?? []).map((part) => loadImage(part)));
  const parts: Array<Record<string, unknown>> = [{ type: "text", text: request.prompt }];
  images.forEach((loaded, index) => {
    parts.push({ type: "text", text: `${imagePlaceholder(index + 1)}:` });
    parts.push(
      loaded.kind === "bytes"
        ? { type: "file", data: { type: "data", data: loaded.data }, mediaType: loaded.mediaType }
        : {
            type: "file",
            data: { type: "url", url: loaded.url },
            mediaType: loaded.mediaType ?? "image",
          },
    );
  });
  return parts;
}
