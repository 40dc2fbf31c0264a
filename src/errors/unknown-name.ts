import { editDistance } from "./edit-distance.ts";

/** `strict_mode`, `strict-mode` and `StrictMode` → `strictMode`. */
function camelCase(name: string): string {
  const camel = name.replace(/[_-]+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase());
  return camel.charAt(0).toLowerCase() + camel.slice(1);
}

/**
 * Why `name` is none of the `known` option names, with the one it most likely meant: another
 * spelling (`strict_mode` → "verdict spells it `strictMode`"), a typo within a few edits
 * (`treshold` → "did you mean `threshold`?"), or none.
 * @example
 * describeUnknownName("identifer", ["identifier", "resume"]); // "`identifer`: did you mean `identifier`?"
 */
export function describeUnknownName(name: string, known: readonly string[]): string {
  const spelled = camelCase(name);
  if (spelled !== name && known.includes(spelled)) {
    return `\`${name}\`: verdict spells it \`${spelled}\``;
  }
  const loose = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, "");
  const sameLetters = known.find((option) => loose(option) === loose(name));
  if (sameLetters !== undefined) return `\`${name}\`: verdict spells it \`${sameLetters}\``;
  let best: { option: string; distance: number } | null = null;
  for (const option of known) {
    const distance = editDistance(loose(name), loose(option));
    if (best === null || distance < best.distance) best = { option, distance };
  }
  const allowed = Math.max(2, Math.floor(name.length / 4));
  if (best !== null && best.distance <= allowed) {
    return `\`${name}\`: did you mean \`${best.option}\`?`;
  }
  return `\`${name}\` is not one of its options`;
}
