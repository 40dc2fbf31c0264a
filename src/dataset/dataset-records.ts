import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parse } from "csv/sync";
import { restoreFormulaCell } from "../csv/formula-cell.ts";
import { ConfigError } from "../errors/config-error.ts";
import { isBlankText } from "../test-case/llm-test-case.ts";
import type { DatasetFormat } from "./dataset-format.ts";
import { decodeDatasetText } from "./decode-dataset-text.ts";
import { type RecordLocation, recordError } from "./golden-record.ts";
import { lineIndex } from "./line-index.ts";

/**
 * The records of a dataset file before they mean anything: JSON values with their line
 * (JSON, JSONL) or CSV rows of cells with theirs. Goldens and labelled calibration rows are
 * both read through here, so both name the same file and line for the same broken record.
 */

/** One JSON record of a file and where it starts. */
export interface JsonRecord {
  value: unknown;
  /** 1-based line where the record starts; `null` when it cannot be told. */
  line: number | null;
  /** 0-based position among the file's records. */
  item: number;
}

/** A CSV file's header and its non-blank rows. */
export interface CsvTable {
  /** The header's names, trimmed (an empty name is an unnamed column). */
  names: string[];
  /** The named columns, each once (a repeated name is an error). */
  present: Set<string>;
  rows: Array<{ cells: string[]; line: number }>;
}

/**
 * The text of a dataset file, decoded (see `decodeDatasetText`).
 * @throws ConfigError when the file cannot be read (missing, a folder, no permission).
 * @throws DatasetFileError when it cannot be decoded, or is empty (`empty` says what to add).
 */
export async function readDatasetText(options: {
  path: string;
  encoding: BufferEncoding | undefined;
  /** What to write in an empty file, e.g. `add one golden per line, …`. */
  empty: string;
  /** What the file should hold, for the empty-file message (`goldens`, `rows`). */
  holds: string;
}): Promise<string> {
  const { path } = options;
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what =
      code === "ENOENT"
        ? "does not exist"
        : code === "EISDIR"
          ? "is a folder"
          : `cannot be read (${code ?? String(error)})`;
    throw new ConfigError(
      `Dataset file "${path}" ${what} (looked at ${resolve(path)}): check the path.`,
      { cause: error },
    );
  }
  const text = decodeDatasetText({ bytes, path, encoding: options.encoding });
  if (isBlankText(text)) {
    throw recordError({
      location: { path, line: null, item: null },
      problem: `the file is empty (${bytes.length === 0 ? "0 bytes" : "only whitespace"}), so it holds no ${options.holds}: ${options.empty}`,
    });
  }
  return text;
}

/** Why a file of this format holds no records, once parsed: for the "holds no …" message. */
export function describeNoRecords(format: DatasetFormat): string {
  return format === "csv"
    ? "has a header but no rows"
    : format === "json"
      ? "holds an empty list"
      : "holds only blank lines";
}

// Offsets where each element of a top-level JSON array starts (the text is valid JSON).
function arrayItemOffsets(text: string): number[] {
  const offsets: number[] = [];
  let depth = 0;
  let expectItem = false;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === "\\") index++;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === " " || character === "\t" || character === "\n" || character === "\r")
      continue;
    if (depth === 1 && expectItem && character !== "]") {
      offsets.push(index);
      expectItem = false;
    }
    if (character === '"') inString = true;
    else if (character === "[" || character === "{") {
      depth++;
      if (depth === 1) expectItem = true;
    } else if (character === "]" || character === "}") depth--;
    else if (character === "," && depth === 1) expectItem = true;
  }
  return offsets;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// The first array item that is not valid JSON: items before it parse as an array prefix
// (a monotonic property, so binary search), and the scan of item starts tolerates bad JSON.
function firstBadItem(text: string): { item: number; offset: number } | null {
  const offsets = arrayItemOffsets(text);
  const prefixParses = (count: number) => {
    const end = offsets[count];
    return end === undefined || parses(`${text.slice(0, end).replace(/,\s*$/, "")}]`);
  };
  if (offsets.length === 0 || !prefixParses(0)) return null;
  let good = 0;
  let bad = offsets.length;
  while (bad - good > 1) {
    const middle = (good + bad) >>> 1;
    if (prefixParses(middle)) good = middle;
    else bad = middle;
  }
  const offset = offsets[good];
  return offset === undefined ? null : { item: good, offset };
}

function invalidJson(options: {
  error: unknown;
  text: string;
  path: string;
  line: number | null;
  itemNoun: string | undefined;
}): Error {
  const { error, text, path, itemNoun } = options;
  const message = (error as Error).message.replace(/\.$/, "");
  const location: RecordLocation = { path, line: options.line, item: null, itemNoun };
  if (location.line === null) {
    const position = /at position (\d+)/.exec(message)?.[1];
    const bad = position === undefined ? firstBadItem(text) : null;
    if (position !== undefined) location.line = lineIndex(text)(Number(position));
    else if (bad !== null) {
      location.line = lineIndex(text)(bad.offset);
      location.item = bad.item;
    }
  }
  return recordError({ location, problem: `invalid JSON: ${message}.`, cause: error });
}

function parseJsonText(options: {
  text: string;
  path: string;
  line: number | null;
  itemNoun?: string | undefined;
}): unknown {
  try {
    return JSON.parse(options.text);
  } catch (error) {
    throw invalidJson({ ...options, itemNoun: options.itemNoun, error });
  }
}

/**
 * The records of a JSON file holding an array, each with the line where it starts.
 * @throws DatasetFileError for invalid JSON (with the line of the bad item) or a file that is
 * not an array (`notArray` says what to write instead).
 */
export function parseJsonRecords(options: {
  text: string;
  path: string;
  notArray: string;
  /** What the records are, in messages. @default "golden" */
  itemNoun?: string | undefined;
}): JsonRecord[] {
  const { text, path } = options;
  const data = parseJsonText({ text, path, line: null, itemNoun: options.itemNoun });
  if (!Array.isArray(data)) {
    throw recordError({ location: { path, line: 1, item: null }, problem: options.notArray });
  }
  const offsets = arrayItemOffsets(text);
  const lineAt = lineIndex(text);
  return data.map((value, item) => {
    const offset = offsets[item];
    return { value, line: offset === undefined ? null : lineAt(offset), item };
  });
}

/**
 * The records of a JSON Lines file, one per non-blank line, parsed as they are read: a caller
 * that checks each record meets the file's first problem first.
 * @throws DatasetFileError for a line that is not valid JSON, naming it.
 */
export function* parseJsonLinesRecords(options: {
  text: string;
  path: string;
}): Generator<JsonRecord> {
  const { text, path } = options;
  let item = 0;
  for (const [index, lineText] of text.split("\n").entries()) {
    if (lineText.trim() === "") continue;
    const line = index + 1;
    yield { value: parseJsonText({ text: lineText, path, line }), line, item };
    item += 1;
  }
}

// csv/sync's types declare a `parser` namespace (with CsvError) that its code does not export.
function csvErrorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** The csv library's message, without its own location (ours names file and line). */
function csvProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/:? (at|on) line \d+/g, "").replace(/\.$/, "");
}

/**
 * The header and rows of CSV text, each row with the physical line where it starts (quoted
 * cells may span lines). Rows of only blank cells (spreadsheets export them) are left out.
 * A `'` that verdict's CSV writer puts before a formula is removed (`restoreFormulaCell`), so
 * a file verdict wrote reads back as what was written.
 * @throws DatasetFileError for CSV that does not parse or a header naming a column twice.
 */
export function parseCsvTable(options: { text: string; path: string }): CsvTable {
  const { text, path } = options;
  // Parse bytes, not the string: csv-parse reports byte offsets, which we turn into lines
  // ourselves (its own line count is off for CRLF line breaks inside quoted cells).
  const bytes = Buffer.from(text, "utf8");
  const lineAt = lineIndex(bytes);
  const startLine = (end: number) => {
    let offset = end;
    while (bytes[offset] === 0x0a || bytes[offset] === 0x0d) offset++;
    return lineAt(offset);
  };
  // Where each record ends, recorded as it is read: on an error, the failing record starts
  // after the last one read (the error's own offsets are not reliable at end of input).
  const parsed: Array<{ record: string[]; end: number }> = [];
  try {
    parse(bytes, {
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record: string[], context) => {
        parsed.push({ record: record.map(restoreFormulaCell), end: context.bytes });
        return null;
      },
    });
  } catch (error) {
    // Every parse error (CsvError or not) names file and line: nothing raw reaches the user.
    const code = csvErrorCode(error);
    const problem =
      code === "CSV_QUOTE_NOT_CLOSED"
        ? 'a quoted cell that starts in this row is never closed: add the closing ", and write a " inside a quoted cell as "".'
        : code === "INVALID_OPENING_QUOTE" || code === "CSV_INVALID_OPENING_QUOTE"
          ? `a cell holds a " but is not quoted (${csvProblem(error)}): put the whole cell in quotes and double the quote inside, e.g. "say ""hi""".`
          : `this row is not valid CSV (${csvProblem(error)}): quote cells that hold commas, quotes or line breaks, and double the quotes inside them.`;
    const end = parsed.at(-1)?.end ?? 0;
    throw recordError({
      location: { path, line: startLine(end), item: null },
      problem,
      cause: error,
    });
  }
  const [header, ...records] = parsed;
  if (header === undefined) return { names: [], present: new Set(), rows: [] };
  const names = header.record.map((name) => name.trim());
  const present = new Set<string>();
  for (const name of names) {
    if (name === "") continue;
    if (present.has(name)) {
      throw recordError({
        location: { path, line: 1, item: null },
        problem: `column "${name}" appears twice in the header: rename one.`,
      });
    }
    present.add(name);
  }
  const rows: CsvTable["rows"] = [];
  let previousEnd = header.end;
  for (const { record, end } of records) {
    const line = startLine(previousEnd);
    previousEnd = end;
    if (record.every((cell) => isBlankText(cell))) continue;
    rows.push({ cells: record, line });
  }
  return { names, present, rows };
}

/** The problem with a CSV row whose cell count differs from the header's, or `null`. */
export function csvRowWidthProblem(options: { cells: string[]; names: string[] }): string | null {
  const { cells, names } = options;
  return cells.length === names.length
    ? null
    : `this row has ${cells.length} cells but the header has ${names.length} columns: quote cells that hold a comma.`;
}
