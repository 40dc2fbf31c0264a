import { createOpenAI } from "@ai-sdk/openai";
import { loadProcessEnvFiles } from "../config/load-env-files.ts";
import { readProjectConfig } from "../config/project-config.ts";
import { ConfigError } from "../errors/config-error.ts";
import { FAKE_JUDGE_NAME } from "../results/fake-judge-notice.ts";
import { type AiSdkLanguageModel, createJudge } from "./ai-sdk-judge.ts";
import { createFakeJudge } from "./fake-judge.ts";
import { isJudgeModel, type JudgeModel } from "./judge-model.ts";
import {
  PROVIDERS,
  type ProviderInfo,
  type ProviderName,
  SUPPORTED_PROVIDERS,
} from "./providers.ts";
import type { ModelPrices } from "./usage-and-cost.ts";

/**
 * A judge model as users name it: a model string (`"gpt-4.1"`, `"anthropic:claude-sonnet-4-5"`,
 * `"ollama:llama3.1"`, …), an AI SDK language model, or a {@link JudgeModel}.
 */
export type ModelSpec = string | AiSdkLanguageModel | JudgeModel;

/** The judge used when neither `model`, `VERDICT_MODEL` nor `verdict set-model` says otherwise. */
export const DEFAULT_JUDGE_MODEL = "gpt-4.1";

/** Options of {@link resolveJudge}. */
export interface ResolveJudgeOptions {
  /**
   * The judge.
   * @default env.VERDICT_MODEL, else the model persisted by `verdict set-model`, else "gpt-4.1"
   */
  model?: ModelSpec | undefined;
  /**
   * Where API keys and base URLs are read from; values are passed to the provider explicitly.
   * `process.env` (the default) is first completed from `.env` and `.env.local` in the working
   * directory, once per process, never overriding what is set; another object is used as is.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv | undefined;
  /**
   * Where the verdict home folder (`VERDICT_HOME`, else `.verdict`) that holds the persisted
   * model is resolved from.
   * @default process.cwd()
   */
  cwd?: string | undefined;
  /** Prices that override or extend the built-in price table, for `costUsd`. */
  prices?: ModelPrices | undefined;
  /**
   * Loads an optional provider package (`@ai-sdk/anthropic`, …); replaceable in tests.
   * @default the native dynamic `import()`
   */
  importModule?: ((specifier: string) => Promise<unknown>) | undefined;
}

/** Where the judge model came from, in the order they are tried. */
export type JudgeModelSource = "option" | "env" | "config file" | "default";

/** Options of {@link resolveModelSpec}. */
export type ResolveModelSpecOptions = Pick<ResolveJudgeOptions, "model" | "env" | "cwd">;

/**
 * The judge model to use and where it came from: the `model` option, else `VERDICT_MODEL`,
 * else the model persisted in `config.json` by `verdict set-model`, else "gpt-4.1".
 * A broken `config.json` is a `ConfigError`, but only when it is consulted.
 * @example
 * const { model, source } = resolveModelSpec({ env: process.env });
 */
export function resolveModelSpec(options: ResolveModelSpecOptions = {}): {
  model: ModelSpec;
  source: JudgeModelSource;
} {
  if (options.model !== undefined) return { model: options.model, source: "option" };
  const env = options.env ?? process.env;
  loadProcessEnvFiles(env);
  const fromEnv = env.VERDICT_MODEL?.trim();
  if (fromEnv) return { model: fromEnv, source: "env" };
  const persisted = readProjectConfig({ env, cwd: options.cwd }).model;
  if (persisted !== undefined) return { model: persisted, source: "config file" };
  return { model: DEFAULT_JUDGE_MODEL, source: "default" };
}

/**
 * Turns what a user wrote as `model` into a {@link JudgeModel}: a JudgeModel is used as is,
 * an AI SDK language model is wrapped with `createJudge`, and a model string is created with
 * its provider, reading keys from `env`. Fails with a `ConfigError` that says what to do
 * (set a key, install a package, fix the name). Without `model`, the judge is the one
 * {@link resolveModelSpec} picks. The name `"fake"` is verdict's built-in fake judge
 * ({@link createFakeJudge}): no key, no network, and scores that are not real.
 * @example
 * const judge = await resolveJudge({ model: "anthropic:claude-sonnet-4-5" });
 */
export async function resolveJudge(options: ResolveJudgeOptions = {}): Promise<JudgeModel> {
  const env = options.env ?? process.env;
  loadProcessEnvFiles(env);
  const { model } = resolveModelSpec({ model: options.model, env, cwd: options.cwd });
  if (isJudgeModel(model)) return model;
  if (isLanguageModel(model)) return createJudge({ model, prices: options.prices });
  if (typeof model !== "string") {
    throw new ConfigError(
      'The judge model must be a model name (e.g. "gpt-4.1"), an AI SDK language model, or a ' +
        "JudgeModel (an object with name and generate()); got something else.",
    );
  }
  if (model.trim().toLowerCase() === FAKE_JUDGE_NAME) return createFakeJudge();
  const { provider, modelId } = parseModelString(model);
  const spec = `${provider}:${modelId}`;
  const languageModel = await createLanguageModel({
    provider,
    modelId,
    spec,
    env,
    importModule: options.importModule ?? ((specifier) => import(specifier)),
  });
  return createJudge({ model: languageModel, name: spec, prices: options.prices });
}

function isLanguageModel(value: unknown): value is AiSdkLanguageModel {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { specificationVersion?: unknown }).specificationVersion === "string" &&
    typeof (value as { doGenerate?: unknown }).doGenerate === "function"
  );
}

function parseModelString(model: string): { provider: ProviderName; modelId: string } {
  const text = model.trim();
  if (text === "") {
    throw new ConfigError(
      'The judge model name is empty: pass a model such as "gpt-4.1" or ' +
        '"anthropic:claude-sonnet-4-5", or set VERDICT_MODEL.',
    );
  }
  const colon = text.indexOf(":");
  if (colon === -1) return { provider: "openai", modelId: text };
  const prefix = text.slice(0, colon).toLowerCase();
  const modelId = text.slice(colon + 1).trim();
  if (!(SUPPORTED_PROVIDERS as readonly string[]).includes(prefix)) {
    throw new ConfigError(
      `Judge model "${text}" has an unknown provider "${prefix}": use one of ` +
        `${SUPPORTED_PROVIDERS.map((name) => `"${name}:"`).join(", ")} (no prefix means openai), ` +
        `or pass an AI SDK language model.`,
    );
  }
  if (modelId === "") {
    throw new ConfigError(
      `Judge model "${text}" has no model name: write it after the colon, e.g. "${prefix}:${PROVIDERS[prefix as ProviderName].exampleModel}".`,
    );
  }
  return { provider: prefix as ProviderName, modelId };
}

type CreateModelOptions = {
  provider: ProviderName;
  modelId: string;
  spec: string;
  env: NodeJS.ProcessEnv;
  importModule: (specifier: string) => Promise<unknown>;
};

/** Makes a provider: settings in, a function from model id to language model out. */
type ProviderFactory = (
  settings: Record<string, unknown>,
) => (modelId: string) => AiSdkLanguageModel;

async function createLanguageModel(options: CreateModelOptions): Promise<AiSdkLanguageModel> {
  const { provider, modelId, spec, env } = options;
  const required = (variable: string): string => {
    const value = env[variable]?.trim();
    if (!value) {
      throw new ConfigError(
        `Judge model "${spec}" needs ${variable}: set it in the environment or in .env / .env.local ` +
          "in the working directory, or pass another model (to try verdict without a key: VERDICT_MODEL=fake).",
      );
    }
    return value;
  };
  const optional = (variable: string): string | undefined => env[variable]?.trim() || undefined;
  switch (provider) {
    case "openai": {
      const info = PROVIDERS.openai;
      return createOpenAI({
        apiKey: required(info.apiKeyVariable),
        // Always explicit, so the SDK never falls back to process.env behind an injected env.
        baseURL: optional(info.baseUrlVariable) ?? info.defaultBaseUrl,
      })(modelId);
    }
    case "ollama": {
      const info = PROVIDERS.ollama;
      return createOpenAI({
        baseURL: optional(info.baseUrlVariable) ?? info.defaultBaseUrl,
        apiKey: "ollama",
        name: "ollama",
      }).chat(modelId);
    }
    case "openai-compatible": {
      const info = PROVIDERS["openai-compatible"];
      return createOpenAI({
        baseURL: required(info.baseUrlVariable),
        // A placeholder rather than undefined: the SDK would otherwise send OPENAI_API_KEY to this server.
        apiKey: optional(info.apiKeyVariable) ?? "not-needed",
        name: "openai-compatible",
      }).chat(modelId);
    }
    case "anthropic": {
      const info = PROVIDERS.anthropic;
      const apiKey = required(info.apiKeyVariable);
      const create = await loadFactory({ ...options, info });
      return create({
        apiKey,
        baseURL: optional(info.baseUrlVariable) ?? info.defaultBaseUrl,
      })(modelId);
    }
    case "google": {
      const info = PROVIDERS.google;
      const apiKey = required(info.apiKeyVariable);
      const create = await loadFactory({ ...options, info });
      const baseURL = optional(info.baseUrlVariable);
      return create(baseURL === undefined ? { apiKey } : { apiKey, baseURL })(modelId);
    }
    case "azure": {
      const info = PROVIDERS.azure;
      const apiKey = required(info.apiKeyVariable);
      const baseURL = optional(info.baseUrlVariable);
      const location =
        baseURL === undefined ? { resourceName: required(info.resourceNameVariable) } : { baseURL };
      const create = await loadFactory({ ...options, info });
      return create({ apiKey, ...location })(modelId);
    }
  }
}

async function loadFactory(
  options: CreateModelOptions & { info: ProviderInfo },
): Promise<ProviderFactory> {
  const { packageName, factoryName } = options.info;
  let loaded: unknown;
  try {
    loaded = await options.importModule(packageName);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new ConfigError(
        `Judge model "${options.spec}" needs the package ${packageName}: run npm install ${packageName}`,
        { cause: error },
      );
    }
    throw error;
  }
  const factory = (loaded as Record<string, unknown> | null)?.[factoryName];
  if (typeof factory !== "function") {
    throw new ConfigError(
      `Judge model "${options.spec}" needs ${packageName} 4.x, but the installed version has no ` +
        `${factoryName}: run npm install ${packageName}@latest`,
    );
  }
  return factory as ProviderFactory;
}
