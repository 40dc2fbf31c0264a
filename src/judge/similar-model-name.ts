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

/** Edits between two strings, a swap of neighbouring characters counting as one. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number) => table[row]?.[column] ?? Number.POSITIVE_INFINITY;
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let distance = Math.min(
        at(row - 1, column) + 1,
        at(row, column - 1) + 1,
        at(row - 1, column - 1) + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        distance = Math.min(distance, at(row - 2, column - 2) + 1);
      }
      (table[row] as number[])[column] = distance;
    }
  }
  return at(a.length, b.length);
}
