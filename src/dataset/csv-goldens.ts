import { parse, stringify } from "csv/sync";
import { ConfigError } from "../errors/config-error.ts";
import { toJsonValue, WHOLE_VALUE } from "../results/to-json-value.ts";
import type { Golden } from "../test-case/golden.ts";
import { isBlankText } from "../test-case/llm-test-case.ts";
import {
  columnName,
  GOLDEN_FIELDS,
  type GoldenColumns,
  type GoldenField,
  matchColumns,
} from "./golden-columns.ts";
import {
  describeGolden,
  goldenFromRecord,
  presentFields,
  type RecordValue,
  recordError,
} from "./golden-record.ts";
import { lineIndex } from "./line-index.ts";
import { joinListCell, splitListCell } from "./list-cell.ts";

const LIST_FIELDS = new Set<GoldenField>(["context", "retrievalContext", "tags"]);
const JSON_FIELDS = new Set<GoldenField>(["toolsCalled", "expectedTools", "metadata"]);

/** Options of {@link parseCsvGoldens}. */
export interface ParseCsvGoldensOptions {
  /** The file's text, without a byte-order mark. */
  text: string;
  /** The file, as given: shown in errors. */
  path: string;
  columns: GoldenColumns;
  /** Separates the items of `context`, `retrievalContext` and `tags` cells. */
  listDelimiter: string;
  /** Where relative image paths are resolved from (unused by CSV cells today). */
  baseDirectory: string;
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

interface ParsedRecord {
  record: string[];
  /** Byte offset just after the record (and its line break). */
  end: number;
}

function cellValue(options: {
  field: GoldenField;
  column: string;
  cell: string;
  listDelimiter: string;
}): { value: unknown } | { problem: string } {
  const { field, column, cell, listDelimiter } = options;
  if (LIST_FIELDS.has(field)) return { value: splitListCell({ cell, delimiter: listDelimiter }) };
  if (!JSON_FIELDS.has(field)) return { value: cell };
  try {
    return { value: JSON.parse(cell) };
  } catch (error) {
    const example =
      field === "metadata" ? '{"source": "faq"}' : '[{"name": "search", "inputParameters": {}}]';
    return {
      problem: `"${column}" holds invalid JSON (${(error as Error).message}): write it as JSON, e.g. ${example}.`,
    };
  }
}

/**
 * Goldens from CSV text with a header row. Empty cells are absent fields; `context`,
 * `retrievalContext` and `tags` cells are split on the list delimiter (`\|` escapes it);
 * `toolsCalled`, `expectedTools` and `metadata` cells hold JSON. Errors name the file and
 * the physical line where the bad record starts (quoted cells may span lines).
 * @throws DatasetFileError
 */
export function parseCsvGoldens(options: ParseCsvGoldensOptions): Golden[] {
  const { text, path, columns, listDelimiter, baseDirectory } = options;
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
  const parsed: ParsedRecord[] = [];
  try {
    parse(bytes, {
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record: string[], context) => {
        parsed.push({ record, end: context.bytes });
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
  const [header, ...rows] = parsed;
  if (header === undefined) return [];

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
  const headerLocation = { path, line: 1, item: null };
  const listed = [...present].map((name) => `"${name}"`).join(", ");
  const match = matchColumns({ columns, present });
  const [missing] = match.missing;
  if (missing !== undefined) {
    throw recordError({
      location: headerLocation,
      problem: `no column "${missing.key}" (mapped to "${missing.field}"); the header has ${listed}.`,
    });
  }
  const [conflict] = match.conflicts;
  if (conflict !== undefined) {
    throw recordError({
      location: headerLocation,
      problem: `"${conflict.field}" has two columns, ${conflict.keys.map((key) => `"${key}"`).join(" and ")}: keep one.`,
    });
  }
  if (!match.keys.has("input")) {
    throw recordError({
      location: headerLocation,
      problem: `no "input" column; the header has ${listed}. Name it "input", or map it with columns: { input: "…" }.`,
    });
  }

  const positions = new Map(names.map((name, position) => [name, position]));
  const goldens: Golden[] = [];
  let previousEnd = header.end;
  for (const { record, end } of rows) {
    const line = startLine(previousEnd);
    previousEnd = end;
    // Spreadsheets export trailing rows of empty cells: they are no goldens.
    if (record.every((cell) => isBlankText(cell))) continue;
    const location = { path, line, item: goldens.length };
    if (record.length !== names.length) {
      throw recordError({
        location,
        problem: `this row has ${record.length} cells but the header has ${names.length} columns: quote cells that hold a comma.`,
      });
    }
    const values = new Map<GoldenField, RecordValue>();
    for (const [field, column] of match.keys) {
      const cell = record[positions.get(column) as number] ?? "";
      if (cell === "") continue;
      const value = cellValue({ field, column, cell, listDelimiter });
      if ("problem" in value) throw recordError({ location, problem: value.problem });
      values.set(field, { key: column, value: value.value });
    }
    if (!values.has("input")) {
      values.set("input", { key: match.keys.get("input") as string, value: "" });
    }
    goldens.push(goldenFromRecord({ values, location, baseDirectory }));
  }
  return goldens;
}

/** Options of {@link stringifyCsvGoldens}. */
export interface StringifyCsvGoldensOptions {
  goldens: readonly Golden[];
  columns: GoldenColumns;
  listDelimiter: string;
}

function cellOf(options: {
  golden: Golden;
  index: number;
  field: GoldenField;
  listDelimiter: string;
}): string {
  const { golden, field, listDelimiter } = options;
  const value = golden[field];
  if (value === undefined) return "";
  const where = `"${field}" of ${describeGolden(options)}`;
  const cannot = (what: string) =>
    new ConfigError(
      `Cannot save ${where} as CSV: it is ${what}, which a CSV cell cannot hold unchanged. Save the dataset as JSON or JSONL${what.includes("image") ? "" : ", or leave the field out"}.`,
    );
  if (typeof value === "string") {
    if (value === "") throw cannot("an empty string (an empty cell reads back as no value)");
    return value;
  }
  if (LIST_FIELDS.has(field)) {
    const items = value as string[];
    if (items.length === 0) throw cannot("an empty list (an empty cell reads back as no value)");
    if (items.length === 1 && items[0] === "") {
      throw cannot("a list of one empty string (an empty cell reads back as no value)");
    }
    return joinListCell({ items, delimiter: listDelimiter });
  }
  if (JSON_FIELDS.has(field)) return JSON.stringify(toJsonValue(value, WHOLE_VALUE));
  const hasImage = (value as ReadonlyArray<unknown>).some((part) => typeof part !== "string");
  throw cannot(hasImage ? "text with image parts" : "a list of text parts");
}

/**
 * CSV text of goldens: a header with the columns any golden uses (input first), then one
 * row per golden. Lists are joined with the list delimiter (escaping it inside items), tool
 * calls and metadata written as JSON.
 * @throws ConfigError for what a CSV cell cannot hold unchanged: image parts, empty strings
 * and empty lists.
 */
export function stringifyCsvGoldens(options: StringifyCsvGoldensOptions): string {
  const { goldens, columns, listDelimiter } = options;
  const used = new Set<GoldenField>(["input"]);
  for (const golden of goldens) for (const field of presentFields(golden)) used.add(field);
  const fields = GOLDEN_FIELDS.filter((field) => used.has(field));
  const rows = goldens.map((golden, index) =>
    fields.map((field) => cellOf({ golden, index, field, listDelimiter })),
  );
  return stringify([fields.map((field) => columnName({ columns, field })), ...rows]);
}
