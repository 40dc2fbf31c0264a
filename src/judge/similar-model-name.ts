import { editDistance } from "../errors/edit-distance.ts";
import { PROVIDERS } from "./providers.ts";
import { DEFAULT_MODEL_PRICES } from "./usage-and-cost.ts";

/** Options of {@link similarModelName}. */
export interface SimilarModelNameOptions {
  /** The model id the provider did not know, with or without a `provider:` prefix. */
  modelId: string;
  /** Model ids to choose from. @default the priced models and each provider's example model */
  known?: readonly string[];
}

function knownModels(): string[] {
  return [
    ...Object.keys(DEFAULT_MODEL_PRICES),
    ...Object.values(PROVIDERS).map((provider) => provider.exampleModel),
  ];
}

/**
 * A known model whose id is within two edits (insertions, deletions, substitutions or swaps of
 * neighbours) of a mistyped one, for "did you mean" hints: `"gtp-4.1"` → `"gpt-4.1"`. Returns
 * `null` when none is that close, or when the id is itself known.
 * @example
 * similarModelName({ modelId: "openai:gtp-4.1" }); // "gpt-4.1"
 */
export function similarModelName(options: SimilarModelNameOptions): string | null {
  const wanted = options.modelId
    .trim()
    .toLowerCase()
    .replace(/^[\w.-]+:/, "");
  if (wanted === "") return null;
  const known = [...new Set(options.known ?? knownModels())];
  if (known.some((model) => model.toLowerCase() === wanted)) return null;
  // Short ids are close to many others: allow fewer edits for them.
  const allowed = wanted.length <= 4 ? 1 : 2;
  let best: { model: string; distance: number } | null = null;
  for (const model of known) {
    const distance = editDistance(wanted, model.toLowerCase());
    if (distance <= allowed && (best === null || distance < best.distance)) {
      best = { model, distance };
    }
  }
  return best?.model ?? null;
}
