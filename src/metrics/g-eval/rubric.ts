import { z } from "zod";
import { ConfigError } from "../../errors/config-error.ts";

/** One range of a G-Eval rubric: the scores from `scoreRange[0]` to `scoreRange[1]` mean `expectedOutcome`. */
export interface Rubric {
  /** Whole numbers within 0–10, start ≤ end; ranges of one rubric never overlap. */
  scoreRange: readonly [number, number];
  /** What a test case scored in this range is like, e.g. `"Mostly correct, one minor slip."`. */
  expectedOutcome: string;
}

/** The schema of one rubric range, for option checking. */
export const rubricSchema = z.object({
  scoreRange: z.tuple([z.number().int().min(0).max(10), z.number().int().min(0).max(10)]),
  expectedOutcome: z.string().trim().min(1),
});

/**
 * Checks a rubric and sorts it by the start of its ranges, as deepeval does: a range outside
 * 0–10, backwards, or overlapping another is a `ConfigError`. An empty rubric is none.
 */
export function sortRubric(rubric: readonly Rubric[] | undefined): Rubric[] | null {
  if (rubric === undefined || rubric.length === 0) return null;
  for (const range of rubric) {
    const [start, end] = range.scoreRange;
    if (start > end) {
      throw new ConfigError(
        `GEval rubric range [${start}, ${end}] runs backwards: write the lower score first.`,
      );
    }
  }
  const sorted = [...rubric].sort((a, b) => a.scoreRange[0] - b.scoreRange[0]);
  for (let index = 1; index < sorted.length; index++) {
    const before = sorted[index - 1] as Rubric;
    const after = sorted[index] as Rubric;
    if (before.scoreRange[1] >= after.scoreRange[0]) {
      throw new ConfigError(
        `GEval rubric ranges [${before.scoreRange.join(", ")}] and [${after.scoreRange.join(", ")}] overlap: ` +
          "each score may belong to one range only.",
      );
    }
  }
  const span = scoreRangeOf(sorted);
  if (span[0] === span[1]) {
    throw new ConfigError(
      `GEval rubric covers the single score ${span[0]}: a rubric must span at least two scores (e.g. [0, 10]).`,
    );
  }
  return sorted;
}

/** The scores a judge may give: 0–10, or from the rubric's first start to its last end. */
export function scoreRangeOf(rubric: readonly Rubric[] | null): [number, number] {
  if (rubric === null || rubric.length === 0) return [0, 10];
  return [rubric[0]?.scoreRange[0] ?? 0, rubric.at(-1)?.scoreRange[1] ?? 10];
}

/** The rubric as the prompt shows it: `0-2: …` per range, `5: …` for a single score. */
export function formatRubric(rubric: readonly Rubric[]): string {
  return rubric
    .map(({ scoreRange: [start, end], expectedOutcome }) =>
      start === end ? `${start}: ${expectedOutcome}` : `${start}-${end}: ${expectedOutcome}`,
    )
    .join("\n");
}
