import type { EstimateRange } from "../../results/cost-estimate.ts";

/** A sentence of the judged text and the chance that the judge lists it as an item. */
export interface LikelyItem {
  text: string;
  chance: number;
}

/** What the items a step may extract add up to. */
export interface ItemOutlook {
  /** Expected number of items. */
  expected: number;
  /** Chance that there is at least one (the next step is asked). */
  anyChance: number;
  /** The likeliest items, as many as expected when there is at least one: what prompts are built with. */
  typical: string[];
  /** Every sentence: the most there can be. */
  all: string[];
  /** The chance of each sentence of `all`, in order. */
  chances: number[];
}

/** Sums up the chances of a text's sentences being items. */
export function outlookOf(items: readonly LikelyItem[]): ItemOutlook {
  const expected = items.reduce((sum, item) => sum + item.chance, 0);
  const anyChance = 1 - items.reduce((product, item) => product * (1 - item.chance), 1);
  const typicalCount = anyChance > 0 ? Math.max(1, Math.round(expected / anyChance)) : 0;
  const typical = items
    .map((item, position) => ({ ...item, position }))
    .sort((left, right) => right.chance - left.chance || left.position - right.position)
    .slice(0, typicalCount)
    .sort((left, right) => left.position - right.position)
    .map((item) => item.text);
  return {
    expected,
    anyChance,
    typical,
    all: items.map((item) => item.text),
    chances: items.map((item) => item.chance),
  };
}

/**
 * Expected tokens (characters ÷ 4) of a step's answer that lists the items under `key`, as
 * `{"key":["…","…"]}`: each sentence counted by its chance of being listed.
 */
export function expectedListTokens(key: string, outlook: ItemOutlook): number {
  const characters = outlook.all.reduce(
    (sum, item, position) =>
      sum + (JSON.stringify(item).length + 1) * (outlook.chances[position] ?? 0),
    JSON.stringify({ [key]: [] }).length,
  );
  return Math.ceil(characters / 4);
}

/** The chance that at least one item is flagged, each with its own chance. */
export function anyOf(chances: readonly number[]): number {
  return 1 - chances.reduce((product, chance) => product * (1 - chance), 1);
}

/** A range from three values, kept in order. */
export function rangeOf(low: number, expected: number, high: number): EstimateRange {
  const sorted = [low, expected, high].sort((left, right) => left - right) as [
    number,
    number,
    number,
  ];
  return { low: sorted[0], expected: sorted[1], high: sorted[2] };
}

/** A reason a judge gives for a flagged item, of typical length: what reason prompts are built with. */
export function typicalReason(item: string): string {
  return `"${item}" is worded to belittle; a neutral wording would say the same.`;
}
