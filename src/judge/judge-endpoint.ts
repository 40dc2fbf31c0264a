import type { JudgeModel } from "./judge-model.ts";
import { PROVIDERS } from "./providers.ts";

/**
 * The providers' own endpoints, where a judge is served unless told otherwise. A judge there
 * keeps the cache keys it had before endpoints were part of them.
 */
export const DEFAULT_JUDGE_ENDPOINTS: ReadonlySet<string> = new Set(
  [
    ...Object.values(PROVIDERS).map((provider) => provider.defaultBaseUrl),
    // @ai-sdk/google's own default, which verdict leaves to the package.
    "https://generativelanguage.googleapis.com/v1beta",
  ].flatMap((url) => (url === null ? [] : [normalizeJudgeEndpoint(url) ?? url])),
);

/**
 * Where a judge lives, as its cache key takes it: the scheme, host, port and path of a URL,
 * lower-cased where case does not matter, without a default port, a trailing slash, a user
 * name, a password, a query (`?api-key=…`) or a fragment — so that neither a credential nor a
 * key carried in the URL reaches a key, a log or a store. Text that is not a URL is kept as
 * given, up to any `?` or `#`. `null` for an empty endpoint.
 * @example
 * normalizeJudgeEndpoint("https://me:pw@Gateway.example.com:443/v1/?api-key=k"); // "https://gateway.example.com/v1"
 */
export function normalizeJudgeEndpoint(endpoint: string): string | null {
  const text = endpoint.trim();
  if (text === "") return null;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url === null || url.host === "") {
    // Not a URL with a host ("cluster-a", "me:pw@host/path"): drop what may carry a secret.
    return text.replace(/[?#].*$/s, "").replace(/^[^/@]*@/, "") || null;
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The endpoint an AI SDK language model sends its requests to, normalised (see
 * {@link normalizeJudgeEndpoint}): what its provider's configuration says (`url()` of the
 * OpenAI and Azure providers, `baseURL` of Anthropic and Google), or `null` when the model
 * does not say (a provider of another shape).
 */
export function languageModelEndpoint(model: object): string | null {
  try {
    const config = (model as { config?: unknown }).config as
      | {
          url?: (options: { modelId: string; path: string }) => unknown;
          baseURL?: unknown;
        }
      | undefined;
    const modelId = (model as { modelId?: unknown }).modelId;
    const fromUrl =
      typeof config?.url === "function"
        ? config.url({ modelId: typeof modelId === "string" ? modelId : "", path: "" })
        : undefined;
    const url = typeof fromUrl === "string" ? fromUrl : config?.baseURL;
    return typeof url === "string" ? normalizeJudgeEndpoint(url) : null;
  } catch {
    // A provider that resolves its URL lazily (Azure without a resource name) says nothing yet.
    return null;
  }
}

/**
 * Where a judge lives: its own `endpoint` (a custom {@link JudgeModel} says it, a judge made
 * from an AI SDK model reads its model's), normalised, or `null` when it does not say. Part of
 * every cache key, so that the same model name at another server never reuses its answers.
 */
export function judgeEndpoint(judge: JudgeModel): string | null {
  const endpoint = judge.endpoint;
  return typeof endpoint === "string" ? normalizeJudgeEndpoint(endpoint) : null;
}
