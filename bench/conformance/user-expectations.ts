// The expectations of an example at the level users see: the score (or its range), pass/fail at
// the default threshold, and the items that must be extracted or flagged. Each is checked only
// when the example states it; the coarse class (class-agreement.ts) is always checked too.
import { type ConformanceExample, expectedScoreRange, normaliseText } from "./conformance-set.ts";

/** What the metric gave, as a user reads it off the result. */
export interface ObservedResult {
  /** `null` when the metric failed. */
  score: number | null;
  /** Pass/fail at the threshold it ran with (the default); `null` when it failed. */
  pass: boolean | null;
  /** The items the extraction step gave (for an example naming an item: that item's). */
  items: readonly string[];
  /** The items whose verdict counts against the output. */
  flagged: readonly string[];
}

/** How one example's user-level expectations fared: `null` where it states none. */
export interface ExpectationChecks {
  /** Pass/fail agrees; `null` when the example states no `pass`. */
  pass: boolean | null;
  /** The score is in range and every expected item was extracted and flagged. */
  score: boolean;
  /** What disagreed, one phrase each ("score 0.5, expected 1", "\"garbage\" not flagged"). */
  misses: string[];
}

function formatRange([min, max]: [number, number]): string {
  return min === max ? `${min}` : `${min}–${max}`;
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/** Whether some item holds `piece` (case, quotes and spacing aside). */
function someItemHolds(items: readonly string[], piece: string): boolean {
  const wanted = normaliseText(piece);
  return items.some((item) => normaliseText(item).includes(wanted));
}

/**
 * Checks what the metric gave against the example's user-level expectations. A failed metric
 * (score `null`) disagrees with every stated one.
 */
export function checkExpectations(
  example: ConformanceExample,
  observed: ObservedResult,
): ExpectationChecks {
  const misses: string[] = [];
  let pass: boolean | null = null;
  if (example.pass !== undefined) {
    pass = observed.pass === example.pass;
    if (!pass) {
      misses.push(
        `${observed.pass === null ? "no result" : observed.pass ? "passes" : "fails"}, expected to ${example.pass ? "pass" : "fail"}`,
      );
    }
  }
  const range = expectedScoreRange(example);
  if (range !== null) {
    const score = observed.score;
    if (score === null || round(score) < range[0] || round(score) > range[1]) {
      misses.push(
        `score ${score === null ? "none" : round(score)}, expected ${formatRange(range)}`,
      );
    }
  }
  const count = example.extractedCount;
  if (count !== undefined && observed.items.length !== count) {
    misses.push(`${observed.items.length} items extracted, expected ${count}`);
  }
  for (const piece of example.extracted ?? []) {
    if (!someItemHolds(observed.items, piece)) misses.push(`"${piece}" not extracted`);
  }
  for (const piece of example.flagged ?? []) {
    if (!someItemHolds(observed.flagged, piece)) misses.push(`"${piece}" not flagged`);
  }
  const passMisses = pass === false ? 1 : 0;
  return { pass, score: misses.length === passMisses, misses };
}

/** An example's user-level expectations in one line: "score 1, fails, flags "garbage"". */
export function describeExpectations(example: ConformanceExample): string {
  const parts: string[] = [];
  const range = expectedScoreRange(example);
  if (range !== null) parts.push(`score ${formatRange(range)}`);
  if (example.pass !== undefined) parts.push(example.pass ? "passes" : "fails");
  if (example.extractedCount !== undefined) parts.push(`${example.extractedCount} items`);
  if (example.extracted)
    parts.push(`extracts ${example.extracted.map((piece) => `"${piece}"`).join(", ")}`);
  if (example.flagged)
    parts.push(`flags ${example.flagged.map((piece) => `"${piece}"`).join(", ")}`);
  return parts.join(", ");
}

/** What the metric gave, in the same words: "score 0.5, passes, flags "garbage"". */
export function describeObserved(observed: ObservedResult): string {
  if (observed.score === null) return "no result";
  const flags =
    observed.flagged.length === 0
      ? "flags nothing"
      : `flags ${observed.flagged.map((item) => JSON.stringify(item)).join(", ")}`;
  return `score ${round(observed.score)}, ${observed.pass ? "passes" : "fails"}, ${observed.items.length} items, ${flags}`;
}
