/** What verdict knows of a provider a model string may name. */
export interface ProviderInfo {
  /** How messages name it, e.g. `"Anthropic"`. */
  displayName: string;
  /** The AI SDK package that makes its models. */
  packageName: string;
  /** The package's provider factory, e.g. `"createAnthropic"`. */
  factoryName: string;
  /** The variable that holds its API key, or `null` when it takes none (Ollama). */
  apiKeyVariable: string | null;
  /** Whether a model cannot be created without the API key. */
  apiKeyRequired: boolean;
  /** The variable that overrides its base URL. */
  baseUrlVariable: string;
  /** Whether a model cannot be created without the base URL (an OpenAI-compatible server). */
  baseUrlRequired: boolean;
  /** The base URL used when the variable is unset; `null` leaves it to the provider package. */
  defaultBaseUrl: string | null;
  /** Azure's resource name, needed when no base URL is set. */
  resourceNameVariable: string | null;
  /** A model id for examples in messages. */
  exampleModel: string;
}

/**
 * The providers a model string may start with (`"anthropic:claude-sonnet-4-5"`; no prefix
 * means openai): the one table that model resolution, the CLI and error messages read.
 */
export const PROVIDERS = {
  openai: {
    displayName: "OpenAI",
    packageName: "@ai-sdk/openai",
    factoryName: "createOpenAI",
    apiKeyVariable: "OPENAI_API_KEY",
    apiKeyRequired: true,
    baseUrlVariable: "OPENAI_BASE_URL",
    baseUrlRequired: false,
    defaultBaseUrl: "https://api.openai.com/v1",
    resourceNameVariable: null,
    exampleModel: "gpt-4.1",
  },
  anthropic: {
    displayName: "Anthropic",
    packageName: "@ai-sdk/anthropic",
    factoryName: "createAnthropic",
    apiKeyVariable: "ANTHROPIC_API_KEY",
    apiKeyRequired: true,
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    baseUrlRequired: false,
    defaultBaseUrl: "https://api.anthropic.com/v1",
    resourceNameVariable: null,
    exampleModel: "claude-sonnet-4-5",
  },
  google: {
    displayName: "Google Generative AI",
    packageName: "@ai-sdk/google",
    factoryName: "createGoogleGenerativeAI",
    apiKeyVariable: "GOOGLE_GENERATIVE_AI_API_KEY",
    apiKeyRequired: true,
    baseUrlVariable: "GOOGLE_GENERATIVE_AI_BASE_URL",
    baseUrlRequired: false,
    defaultBaseUrl: null,
    resourceNameVariable: null,
    exampleModel: "gemini-2.5-flash",
  },
  azure: {
    displayName: "Azure OpenAI",
    packageName: "@ai-sdk/azure",
    factoryName: "createAzure",
    apiKeyVariable: "AZURE_API_KEY",
    apiKeyRequired: true,
    baseUrlVariable: "AZURE_BASE_URL",
    baseUrlRequired: false,
    defaultBaseUrl: null,
    resourceNameVariable: "AZURE_RESOURCE_NAME",
    exampleModel: "my-deployment",
  },
  ollama: {
    displayName: "Ollama",
    packageName: "@ai-sdk/openai",
    factoryName: "createOpenAI",
    apiKeyVariable: null,
    apiKeyRequired: false,
    baseUrlVariable: "OLLAMA_BASE_URL",
    baseUrlRequired: false,
    defaultBaseUrl: "http://127.0.0.1:11434/v1",
    resourceNameVariable: null,
    exampleModel: "llama3.1",
  },
  "openai-compatible": {
    displayName: "OpenAI-compatible server",
    packageName: "@ai-sdk/openai",
    factoryName: "createOpenAI",
    apiKeyVariable: "VERDICT_API_KEY",
    apiKeyRequired: false,
    baseUrlVariable: "VERDICT_BASE_URL",
    baseUrlRequired: true,
    defaultBaseUrl: null,
    resourceNameVariable: null,
    exampleModel: "my-model",
  },
} as const satisfies Record<string, ProviderInfo>;

/** A provider prefix of a model string. */
export type ProviderName = keyof typeof PROVIDERS;

/** Provider prefixes a model string may start with (no prefix means `openai`). */
export const SUPPORTED_PROVIDERS = Object.keys(PROVIDERS) as readonly ProviderName[];

/** The provider a judge name (`"anthropic:claude-sonnet-4-5"`) starts with, if it names one. */
export function providerOfJudgeName(judgeName: string): ProviderInfo | undefined {
  const prefix = judgeName.split(":")[0] ?? "";
  return Object.hasOwn(PROVIDERS, prefix) ? PROVIDERS[prefix as ProviderName] : undefined;
}
