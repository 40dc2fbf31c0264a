import { neutraliseFormulaCell } from "./formula-cell.ts";

/**
 * A value of a CSV cell: text (neutralised against formulas, see `neutraliseFormulaCell`), a
 * number or boolean (written as is: a spreadsheet reads them as values, which cannot run), or
 * nothing (`null`, `undefined`: an empty cell).
 */
export type CsvValue = string | number | boolean | null | undefined;

// RFC 4180: a cell holding the delimiter, a quote or any line break is quoted, its quotes
// doubled. Every line break counts, whatever the file's own record delimiter: a spreadsheet
// ends a row at a lone \n or \r as well.
const NEEDS_QUOTES = /[",\r\n]/;

function cellText(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return String(value);
  // A finite number's text cannot run (`-0.5` is a number); Infinity and NaN go as text.
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return neutraliseFormulaCell(String(value));
}

function quoted(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * CSV text of rows of cells, the one CSV writer of verdict (reports, the dashboard's
 * export, datasets): RFC 4180 quoting of every cell that holds a comma, a quote or a line
 * break of any kind, and text that a spreadsheet would run as a formula behind a `'`. Each
 * row ends with `recordDelimiter`, the last one too.
 * @example
 * renderCsv({ rows: [["name", "score"], ["=cmd", 0.5]] }); // "name,score\r\n'=cmd,0.5\r\n"
 */
export function renderCsv(options: {
  rows: Iterable<readonly CsvValue[]>;
  /** @default "\r\n" (RFC 4180) */
  recordDelimiter?: "\r\n" | "\n";
}): string {
  const delimiter = options.recordDelimiter ?? "\r\n";
  let text = "";
  for (const row of options.rows) {
    const cells = row.map((value) => quoted(cellText(value)));
    // A row of one empty cell is written "" so that no reader skips it as a blank line.
    text += `${cells.length === 1 && cells[0] === "" ? '""' : cells.join(",")}${delimiter}`;
  }
  return text;
}
