import { generateText } from "ai";
import { z } from "zod";
import { buildTestCases } from "../dataset/build-test-cases.ts";
import { type AiSdkLanguageModel, userContent } from "../judge/ai-sdk-judge.ts";
import { languageModelEndpoint } from "../judge/judge-endpoint.ts";
import type { JudgeModel, JudgeOutput } from "../judge/judge-model.ts";
import type { JudgeTransport } from "../judge/judge-transport.ts";
import type { Golden } from "../test-case/golden.ts";
import { type Content, type ImagePart, renderContent } from "../test-case/image.ts";
import type { LLMTestCase } from "../test-case/llm-test-case.ts";

/** How a checkpoint's model is asked to answer each golden. */
export interface GenerationSettings {
  /** A system message sent before every golden's input (the one the model was trained with). */
  system?: string | undefined;
  /** Sampling temperature; `null` sends none. @default 0 (the same answer every time) */
  temperature?: number | null | undefined;
  /** The most tokens an answer may have. @default the provider's */
  maxOutputTokens?: number | undefined;
  /** The user message of a golden. @default its `input` */
  prompt?: ((golden: Golden) => Content) | undefined;
}

// What a generation "asks for" in the judge request contract: free text. Part of the cache
// key, so a generation can never be served a judge's answer or the other way round.
const TEXT_SCHEMA = z.string();
const TEXT_JSON_SCHEMA = { type: "string", description: "verdict: a model's free-text answer" };

/** The step name of generation calls in accounting and error messages. */
const GENERATION = { metric: "Generation", step: "generateOutput" } as const;

/**
 * A model that answers goldens, shaped as a {@link JudgeModel} so that its calls go through
 * the same scheduler as judge calls: concurrency per model, retries with backoff, identical
 * requests made once and cached. It asks for plain text, never JSON.
 */
export function createOutputGenerator(options: {
  model: AiSdkLanguageModel;
  /** Its name in the cache key and messages, e.g. `"openai:ft:…:ckpt-step-10"`. */
  name: string;
  settings: GenerationSettings;
}): JudgeModel & { readonly cacheKeySettings: object } {
  const { model, settings } = options;
  const temperature = settings.temperature === undefined ? 0 : settings.temperature;
  return {
    name: options.name,
    endpoint: languageModelEndpoint(model),
    supportsImages: true,
    cacheKeySettings: {
      temperature,
      system: settings.system ?? null,
      maxOutputTokens: settings.maxOutputTokens ?? null,
    },
    async generate(request): Promise<JudgeOutput> {
      const result = await generateText({
        model,
        ...(settings.system === undefined ? {} : { system: settings.system }),
        messages: [{ role: "user", content: await userContent(request) }],
        maxRetries: 0,
        ...(temperature === null ? {} : { temperature }),
        ...(settings.maxOutputTokens === undefined
          ? {}
          : { maxOutputTokens: settings.maxOutputTokens }),
        ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
      });
      const { inputTokens, outputTokens } = result.usage;
      return {
        text: result.text,
        finishReason: result.finishReason,
        ...(inputTokens !== undefined && outputTokens !== undefined
          ? { usage: { inputTokens, outputTokens } }
          : {}),
      };
    },
  };
}

/**
 * The test cases of a model: each golden with the model's answer as `actualOutput`, every
 * call through `transport` (the run's scheduler). Goldens keep their order; a golden whose
 * call failed after its retries is raised with the others in one `TestCaseBuildError`.
 */
export async function generateOutputs(options: {
  goldens: readonly Golden[];
  generator: JudgeModel;
  transport: JudgeTransport;
  settings: GenerationSettings;
  signal: AbortSignal;
  /** Goldens asked at once; the scheduler's limit per model applies on top. */
  concurrency: number;
}): Promise<LLMTestCase[]> {
  const { generator, transport, signal } = options;
  const promptOf = options.settings.prompt ?? ((golden: Golden) => golden.input);
  return buildTestCases({
    goldens: options.goldens,
    concurrency: options.concurrency,
    application: async (_input, golden) => {
      const images: ImagePart[] = [];
      const prompt = renderContent(promptOf(golden), images);
      const response = await transport.send(
        generator,
        { prompt, images, schema: TEXT_SCHEMA, jsonSchema: TEXT_JSON_SCHEMA, signal },
        { ...GENERATION, trial: 0, validate: (answer) => typeof answer.text === "string" },
      );
      return response.text ?? "";
    },
  });
}
