import { renderCsv } from "../csv/render-csv.ts";
import { ConfigError } from "../errors/config-error.ts";
import { toJsonValue, WHOLE_VALUE } from "../results/to-json-value.ts";
import { describeGolden, type Golden } from "../test-case/golden.ts";
import { csvRowWidthProblem, parseCsvTable } from "./dataset-records.ts";
import {
  columnName,
  GOLDEN_FIELDS,
  type GoldenColumns,
  type GoldenField,
  matchColumns,
} from "./golden-columns.ts";
import { goldenFromRecord, presentFields, type RecordValue, recordError } from "./golden-record.ts";
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
  const { names, present, rows } = parseCsvTable({ text, path });
  if (names.length === 0) return [];
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
  for (const { cells: record, line } of rows) {
    const location = { path, line, item: goldens.length };
    const widthProblem = csvRowWidthProblem({ cells: record, names });
    if (widthProblem !== null) throw recordError({ location, problem: widthProblem });
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
  // A reader takes a file with NUL bytes for UTF-16 or binary, and refuses it.
  const nul = "text with a NUL character (a CSV file holding one is not read as text)";
  if (typeof value === "string") {
    if (value === "") throw cannot("an empty string (an empty cell reads back as no value)");
    if (value.includes("\u0000")) throw cannot(nul);
    return value;
  }
  if (LIST_FIELDS.has(field)) {
    const items = value as string[];
    if (items.length === 0) throw cannot("an empty list (an empty cell reads back as no value)");
    if (items.length === 1 && items[0] === "") {
      throw cannot("a list of one empty string (an empty cell reads back as no value)");
    }
    if (items.some((item) => item.includes("\u0000"))) throw cannot(nul);
    return joinListCell({ items, delimiter: listDelimiter });
  }
  if (JSON_FIELDS.has(field)) return JSON.stringify(toJsonValue(value, WHOLE_VALUE));
  const hasImage = (value as ReadonlyArray<unknown>).some((part) => typeof part !== "string");
  throw cannot(hasImage ? "text with image parts" : "a list of text parts");
}

/**
 * CSV text of goldens: a header with the columns any golden uses (input first), then one
 * row per golden. Lists are joined with the list delimiter (escaping it inside items), tool
 * calls and metadata written as JSON. Written by `renderCsv`: a cell a spreadsheet would run
 * as a formula gets a leading `'`, which {@link parseCsvGoldens} removes again.
 * @throws ConfigError for what a CSV cell cannot hold unchanged: image parts, empty strings
 * and empty lists, NUL characters.
 */
export function stringifyCsvGoldens(options: StringifyCsvGoldensOptions): string {
  const { goldens, columns, listDelimiter } = options;
  const used = new Set<GoldenField>(["input"]);
  for (const golden of goldens) for (const field of presentFields(golden)) used.add(field);
  const fields = GOLDEN_FIELDS.filter((field) => used.has(field));
  const rows = goldens.map((golden, index) =>
    fields.map((field) => cellOf({ golden, index, field, listDelimiter })),
  );
  return renderCsv({
    rows: [fields.map((field) => columnName({ columns, field })), ...rows],
    recordDelimiter: "\n",
  });
}
