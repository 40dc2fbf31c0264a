import { editDistance } from "../../errors/edit-distance.ts";
import { MODEL_VERSION_SUFFIX } from "../../judge/usage-and-cost.ts";

/**
 * Model ids each hosted provider serves, as of this verdict release: what `verdict set-model`
 * checks a name against, so that a typo ("gtp-4.1") is caught when it is saved rather than as
 * a 404 on the first run. Dated snapshots and channels of these ids (`gpt-4.1-2025-04-14`,
 * `claude-sonnet-4-5-20250929`, `-latest`, `-preview…`) count as known. Azure deployments,
 * Ollama and OpenAI-compatible servers name models freely and are not checked.
 */
export const KNOWN_MODELS: Readonly<Record<string, readonly string[]>> = {
  openai: [
    "gpt-5.1",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-nano",
    "gpt-5-chat",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4-turbo",
    "gpt-4",
    "gpt-3.5-turbo",
    "o4-mini",
    "o3",
    "o3-mini",
    "o3-pro",
    "o1",
    "o1-mini",
    "o1-pro",
  ],
  anthropic: [
    "claude-opus-4-5",
    "claude-opus-4-1",
    "claude-opus-4-0",
    "claude-opus-4",
    "claude-sonnet-4-5",
    "claude-sonnet-4-0",
    "claude-sonnet-4",
    "claude-haiku-4-5",
    "claude-3-7-sonnet",
    "claude-3-5-sonnet",
    "claude-3-5-haiku",
    "claude-3-haiku",
  ],
  google: [
    "gemini-3-pro",
    "gemini-2.5-pro",
    "gemini-2.5-flash",
    "gemini-2.5-flash-lite",
    "gemini-2.0-flash",
    "gemini-2.0-flash-lite",
    "gemini-1.5-pro",
    "gemini-1.5-flash",
  ],
};

/** What {@link checkKnownModel} found: known, not checked, or unknown with the nearest id. */
export type KnownModelCheck =
  | { status: "known" | "unchecked" }
  | { status: "unknown"; suggestion: string | null; known: readonly string[] };

/**
 * Checks a resolved judge name (`"openai:gtp-4.1"`) against {@link KNOWN_MODELS}; an unknown
 * id comes with the nearest known one when it is close enough to be a typo.
 * @example
 * checkKnownModel({ name: "openai:gtp-4.1" }); // { status: "unknown", suggestion: "gpt-4.1", … }
 */
export function checkKnownModel(options: { name: string }): KnownModelCheck {
  const separator = options.name.indexOf(":");
  const provider = options.name.slice(0, separator);
  const known = KNOWN_MODELS[provider];
  if (separator === -1 || known === undefined) return { status: "unchecked" };
  const modelId = options.name
    .slice(separator + 1)
    .trim()
    .toLowerCase()
    .replace(/^models\//, "");
  const isKnown = known.some(
    (id) =>
      modelId === id ||
      (modelId.startsWith(id) && MODEL_VERSION_SUFFIX.test(modelId.slice(id.length))),
  );
  if (isKnown) return { status: "known" };
  let suggestion: string | null = null;
  let best = Number.POSITIVE_INFINITY;
  for (const id of known) {
    const distance = editDistance(modelId, id);
    if (distance < best) [best, suggestion] = [distance, id];
  }
  const closeEnough = best <= Math.max(2, Math.floor(modelId.length / 4));
  return { status: "unknown", suggestion: closeEnough ? suggestion : null, known };
}
