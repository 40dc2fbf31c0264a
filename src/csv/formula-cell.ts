/**
 * The one rule that keeps text a spreadsheet would run as a formula (CSV injection) as text:
 * every CSV verdict writes goes through {@link neutraliseFormulaCell}, and verdict's dataset
 * reader undoes it with {@link restoreFormulaCell}, so a CSV written by verdict reads back as
 * the text that was written.
 */

/** What verdict puts before a cell that could run as a formula: spreadsheets show it as text. */
export const FORMULA_PREFIX = "'";

// Signs that start a formula (`= + - @`), and what looks like them or becomes them once a
// spreadsheet normalises full-width text (Excel does, in East Asian locales): full-width,
// small, superscript and subscript forms, every Unicode dash and minus sign but the CJK wave
// dashes (〜 〰 ⁓, tildes to the eye), the heavy plus and minus, and Hebrew's alternative plus.
// A line starts at the cell's start or after any line break a spreadsheet may honour; white
// space, controls and invisible format characters (a zero-width space, a bidi mark) before the
// sign do not count, since some programs strip them on import.
const LIVE_LINE =
  /(?:^|[\n\r\v\f\u0085\u2028\u2029])[\s\p{Cc}\p{Cf}]*(?![\u2053\u301C\u3030])[=+\-@\p{Dash}\u02D7\u207A\u207C\u208A\u208C\u2795\u2796\u2A75\u2A76\uA78A\uFB29\uFE62\uFE66\uFE6B\uFF0B\uFF1D\uFF20]/u;
const CONTROL_START = /^\p{Cc}/u;

/**
 * Whether a spreadsheet could run `text` as a formula: it starts with a control character
 * (tab, carriage return, line feed, NUL, …), or the first character of the cell or of any line
 * in it that is not white space or invisible is a formula sign or a lookalike.
 */
export function couldRunAsFormula(text: string): boolean {
  return CONTROL_START.test(text) || LIVE_LINE.test(text);
}

// A cell needs the prefix when it could run, or when it is such text behind apostrophes of its
// own: `'=1` is written `''=1`, so that reading strips exactly the one verdict added.
function needsPrefix(text: string): boolean {
  return couldRunAsFormula(text.replace(/^'+/, ""));
}

/**
 * The cell to write for `text`: `text` with one leading `'` when {@link couldRunAsFormula}
 * holds for it (or for it without the apostrophes it starts with), else `text` unchanged.
 * @example
 * neutraliseFormulaCell("=1+1"); // "'=1+1"
 * neutraliseFormulaCell("ok\n@SUM(A1)"); // "'ok\n@SUM(A1)"
 */
export function neutraliseFormulaCell(text: string): string {
  return needsPrefix(text) ? `${FORMULA_PREFIX}${text}` : text;
}

/**
 * The text a cell read from CSV stands for: {@link neutraliseFormulaCell} undone, so that
 * `restoreFormulaCell(neutraliseFormulaCell(text)) === text` for every text. A leading `'`
 * is dropped only where the writer would have added it.
 * @example
 * restoreFormulaCell("'=1+1"); // "=1+1"
 * restoreFormulaCell("'quoted'"); // "'quoted'"
 */
export function restoreFormulaCell(cell: string): string {
  return cell.startsWith(FORMULA_PREFIX) && needsPrefix(cell.slice(1)) ? cell.slice(1) : cell;
}
