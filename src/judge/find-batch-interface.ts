/** A batch's status as an AI SDK batch interface reports it (`Experimental_BatchV4Status`). */
export interface AiSdkBatchStatus {
  status: "pending" | "completed" | "failed";
  rawStatus?: string | undefined;
  requestCounts?: { total: number; pending: number; completed: number; failed: number } | undefined;
  error?: { message: string } | undefined;
}

/** One line's outcome as an AI SDK batch interface reports it (`Experimental_TextBatchV4ItemResult`). */
export type AiSdkBatchItem =
  | {
      type: string;
      id: string;
      status: "succeeded";
      result: {
        content: ReadonlyArray<{ type: string; text?: string }>;
        finishReason?: { unified?: string; raw?: string } | undefined;
        usage?:
          | {
              inputTokens?: { total?: number | undefined } | undefined;
              outputTokens?: { total?: number | undefined } | undefined;
            }
          | undefined;
        /** OpenAI's: `openai.logprobs`, one array of tokens per content part, when included. */
        providerMetadata?: unknown;
      };
    }
  | {
      type: string;
      id: string;
      status: "failed" | "expired" | "cancelled";
      error?: { message: string; code?: string | undefined; statusCode?: number | undefined };
    };

/** One text request of a batch, as an AI SDK batch interface takes it (`Experimental_TextBatchV4Request`). */
export interface AiSdkBatchRequest {
  id: string;
  type: "text";
  modelId: string;
  options: Record<string, unknown>;
}

/**
 * The part of an AI SDK provider's batch interface (`provider.experimental_batch()`, the
 * `Experimental_BatchV4` of `@ai-sdk/provider`) that verdict uses. Typed here rather than
 * imported, so verdict's own types never depend on a package it does not declare.
 */
export interface AiSdkBatchInterface {
  readonly provider: string;
  doStartBatch(options: {
    requests: readonly AiSdkBatchRequest[];
    abortSignal?: AbortSignal | undefined;
  }): PromiseLike<AiSdkBatchStatus & { batchId: string }>;
  doGetBatchStatus(options: {
    batchId: string;
    abortSignal?: AbortSignal | undefined;
  }): PromiseLike<AiSdkBatchStatus>;
  doGetBatchResults(options: {
    batchId: string;
    abortSignal?: AbortSignal | undefined;
  }): PromiseLike<ReadableStream<AiSdkBatchItem>>;
}

/** Which batch API a language model's provider offers, by its provider name's first part. */
export type BatchFamily = "openai" | "anthropic";

/** The batch family of an AI SDK model (`openai.responses`, `anthropic.messages`…), or `null`. */
export function batchFamilyOf(model: { provider: string }): BatchFamily | null {
  const family = model.provider.split(".")[0];
  // Only the providers' own names: "ollama", "openai-compatible" or a custom `name` point the
  // same client at servers that have no batch endpoints.
  return family === "openai" || family === "anthropic" ? family : null;
}

type BatchConstructor = new (options: Record<string, unknown>) => AiSdkBatchInterface;

/**
 * The batch interface of a model's own provider, built from the model's configuration (its
 * base URL, headers with the key, and `fetch`), so it reaches the same server with the same
 * credentials as the model's direct calls. The AI SDK makes batch interfaces only from a
 * provider (`createOpenAI(…).experimental_batch()`); a model object does not lead back to its
 * provider, so the interface's class is taken from a provider made for the purpose and given
 * the model's configuration — which is what the provider itself passes it. Returns `null`
 * when the model's shape is not the one expected (another version of the provider package).
 */
export async function findBatchInterface(options: {
  model: { provider: string; modelId: string };
  family: BatchFamily;
  importModule?: ((specifier: string) => Promise<unknown>) | undefined;
}): Promise<AiSdkBatchInterface | null> {
  const { model, family } = options;
  const config = (model as { config?: unknown }).config;
  if (!isModelConfig(config)) return null;
  if (family === "openai") {
    // Chat models share the configuration; the batch asks the Responses endpoint, as the
    // AI SDK's OpenAI batches do. Loaded here, on a batch's first use, never on import.
    const { createOpenAI } = await import("@ai-sdk/openai");
    const probe = createOpenAI({ apiKey: "unused" }).experimental_batch();
    return construct(probe, {
      provider: "openai.batch",
      config: { ...config, provider: "openai.responses" },
    });
  }
  const importModule = options.importModule ?? ((specifier: string) => import(specifier));
  const loaded = (await importModule("@ai-sdk/anthropic")) as {
    createAnthropic?: (settings: object) => { experimental_batch?: () => unknown };
  };
  const probe = loaded.createAnthropic?.({ apiKey: "unused" }).experimental_batch?.();
  return construct(probe, {
    provider: "anthropic.batch",
    config,
    supportedUrls: (config as { supportedUrls?: () => unknown }).supportedUrls?.() ?? {},
  });
}

function isModelConfig(config: unknown): config is Record<string, unknown> {
  if (typeof config !== "object" || config === null) return false;
  const record = config as Record<string, unknown>;
  return typeof record.headers === "function" || typeof record.headers === "object";
}

function construct(probe: unknown, options: Record<string, unknown>): AiSdkBatchInterface | null {
  if (!isBatchInterface(probe)) return null;
  const made = new ((probe as object).constructor as BatchConstructor)(options);
  return isBatchInterface(made) ? made : null;
}

function isBatchInterface(value: unknown): value is AiSdkBatchInterface {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.doStartBatch === "function" &&
    typeof candidate.doGetBatchStatus === "function" &&
    typeof candidate.doGetBatchResults === "function"
  );
}
