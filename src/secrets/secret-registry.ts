/**
 * The secret values this process was given in code or read from files, which
 * `redactSecretText` masks wherever they appear, besides the secret variables of the
 * environment. Keys reach it when a judge is created (`createJudge`, `resolveJudge`: the
 * key its provider sends) and when `.env` files are loaded.
 *
 * It is process-wide on purpose: a key passed to one judge can be echoed into an error that
 * any writer (store, report, console) later handles, and those never see the judge. It only
 * ever holds values, is never printed, and has no way to list them outside this folder.
 */

// Shorter values would mask ordinary words ("ollama", "none"): they are not taken.
export const MIN_SECRET_VALUE_LENGTH = 8;

const counts = new Map<string, number>();
let version = 0;

/**
 * Registers secret values to be masked in everything verdict writes, from now on, in this
 * process. Values are trimmed; blank ones and ones under 8 characters are ignored. Returns a
 * function that removes them again (for tests; a judge's key stays registered).
 * @example
 * const forget = registerSecretValues([apiKey]);
 */
export function registerSecretValues(values: Iterable<string | null | undefined>): () => void {
  const added: string[] = [];
  for (const value of values) {
    const trimmed = value?.trim();
    if (!trimmed || trimmed.length < MIN_SECRET_VALUE_LENGTH) continue;
    counts.set(trimmed, (counts.get(trimmed) ?? 0) + 1);
    added.push(trimmed);
  }
  if (added.length > 0) version++;
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    for (const value of added) {
      const count = (counts.get(value) ?? 1) - 1;
      if (count > 0) counts.set(value, count);
      else counts.delete(value);
    }
    if (added.length > 0) version++;
  };
}

/** The registered values and a number that changes whenever they do (to cache a matcher). */
export function registeredSecretValues(): { values: Iterable<string>; version: number } {
  return { values: counts.keys(), version };
}
