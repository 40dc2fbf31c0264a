import { ConfigError } from "../errors/config-error.ts";

/** Default separator of list items (`context`, `retrievalContext`, `tags`) in a CSV cell. */
export const DEFAULT_LIST_DELIMITER = "|";

/**
 * Checks a list delimiter: one character, not a backslash (the escape character), a quote or
 * a line break (CSV's own syntax). One character, because a longer delimiter could be formed
 * across the end of one item and the start of the next.
 * @throws ConfigError
 */
export function checkListDelimiter(delimiter: string | undefined): string {
  if (delimiter === undefined) return DEFAULT_LIST_DELIMITER;
  if (typeof delimiter !== "string" || [...delimiter].length !== 1 || /[\\"\r\n]/.test(delimiter)) {
    throw new ConfigError(
      `listDelimiter must be one character other than a backslash, a quote or a line break, e.g. "|" or ";", got ${JSON.stringify(delimiter)}.`,
    );
  }
  return delimiter;
}

/**
 * Splits a CSV list cell on the delimiter. A backslash escapes the delimiter (`a\|b` is one
 * item `a|b`) and itself (`\\`); any other backslash is kept as written, so Windows paths and
 * LaTeX in hand-written files read as they look.
 */
export function splitListCell(options: { cell: string; delimiter: string }): string[] {
  const { cell, delimiter } = options;
  const items: string[] = [];
  let item = "";
  let index = 0;
  while (index < cell.length) {
    if (cell[index] === "\\") {
      if (cell[index + 1] === "\\") {
        item += "\\";
        index += 2;
        continue;
      }
      if (cell.startsWith(delimiter, index + 1)) {
        item += delimiter;
        index += 1 + delimiter.length;
        continue;
      }
    }
    if (cell.startsWith(delimiter, index)) {
      items.push(item);
      item = "";
      index += delimiter.length;
      continue;
    }
    item += cell[index];
    index += 1;
  }
  items.push(item);
  return items;
}

/**
 * Joins list items into one CSV cell, the inverse of {@link splitListCell}: a delimiter inside
 * an item is written `\|`, and a backslash only where it would otherwise read as an escape.
 */
export function joinListCell(options: { items: readonly string[]; delimiter: string }): string {
  const { items, delimiter } = options;
  return items
    .map((item) => {
      let escaped = "";
      let index = 0;
      while (index < item.length) {
        if (item.startsWith(delimiter, index)) {
          escaped += `\\${delimiter}`;
          index += delimiter.length;
          continue;
        }
        const character = item[index] as string;
        const next = index + 1;
        // The item ends here, so a delimiter follows once joined: escape this backslash too.
        const readAsEscape =
          character === "\\" &&
          (next === item.length || item[next] === "\\" || item.startsWith(delimiter, next));
        escaped += readAsEscape ? "\\\\" : character;
        index += 1;
      }
      return escaped;
    })
    .join(delimiter);
}
