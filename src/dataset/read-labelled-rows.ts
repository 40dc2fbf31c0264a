import { ConfigError } from "../errors/config-error.ts";
import type { EvalError } from "../errors/eval-error.ts";
import { isBlankText, type TestCaseField } from "../test-case/llm-test-case.ts";
import { type DatasetFormat, resolveDatasetFormat } from "./dataset-format.ts";
import {
  type CsvTable,
  csvRowWidthProblem,
  describeNoRecords,
  parseCsvTable,
  parseJsonLinesRecords,
  parseJsonRecords,
  readDatasetText,
} from "./dataset-records.ts";
import { recordError } from "./golden-record.ts";
import {
  missingReferenceColumn,
  type RowReferenceFields,
  readReferenceFields,
} from "./labelled-row-fields.ts";

/** A label as a data file holds it. */
export type LabelValue = string | number | boolean;

/** Options of {@link readLabelledRows}. */
export interface ReadLabelledRowsOptions {
  /** A JSON, JSONL or CSV file, or the rows themselves (plain objects). */
  data: string | ReadonlyArray<Record<string, unknown>>;
  /** @default from the file's extension */
  format?: DatasetFormat | undefined;
  /** @default "input" */
  inputField?: string | undefined;
  /** @default "actual_output" */
  outputField?: string | undefined;
  /** @default "label" */
  labelField?: string | undefined;
  /** A field naming each row (its test case's name); rows without it are `row <n>`. @default "id" */
  idField?: string | undefined;
  /** The label of a positive row (toxic, biased, relevant), compared as text. @default "1" */
  positiveLabel?: LabelValue | undefined;
  /**
   * The label of a negative row. Given, every other label is an error; left out, the rows may
   * hold one other label besides the positive one.
   */
  negativeLabel?: LabelValue | undefined;
  /** Read only the first `limit` rows. */
  limit?: number | undefined;
  /** Text encoding of the file. @default "utf8" */
  encoding?: BufferEncoding | undefined;
  /**
   * The test-case fields the metric needs, which every row must have: the output only when
   * it is among them; `expected_output`, `context`, `retrieval_context` when they are (read
   * wherever present).
   * @default ["input", "actualOutput"]
   */
  requiredFields?: readonly TestCaseField[] | undefined;
}

/** One labelled row. */
export interface LabelledRow extends RowReferenceFields {
  /** 0-based position among the rows read. */
  index: number;
  /** Line of the file where the row starts; `null` in memory or when unknown. */
  line: number | null;
  /** The row's id field, as text, when it has one. */
  id: string | null;
  input: string;
  /** The output; `""` when the row has none and the metric does not judge one. */
  actualOutput: string;
  /** The label as text. */
  label: string;
  /** Whether the label is the positive one. */
  positive: boolean;
}

/** What {@link readLabelledRows} read. */
export interface LabelledRows {
  rows: LabelledRow[];
  /** The fields and labels used, with the defaults filled in. */
  fields: { input: string; output: string; label: string; id: string };
  positiveLabel: string;
  /** The negative label given, else the rows' other label; `null` when every row is positive. */
  negativeLabel: string | null;
}

/** Where a record sits, and how to fail there. */
interface Place {
  line: number | null;
  item: number;
}

/** A record as read, before its fields are checked. */
interface RawRow extends Place {
  /** Field values; `undefined` when absent. */
  get: (field: string) => unknown;
  /** True for a CSV row, whose cells are text. */
  csv: boolean;
  /** The fields the record has, for messages. */
  keys: () => string[];
}

const SHAPES: Record<DatasetFormat, string> = {
  jsonl:
    'one JSON object per line, e.g. {"input": "Write a comment.", "actual_output": "…", "label": 1}',
  json: 'an array of objects, e.g. [{"input": "Write a comment.", "actual_output": "…", "label": 1}]',
  csv: 'a header, then a row per example, e.g. "input,actual_output,label" then "Write a comment.,…,1"',
};

/**
 * Reads labelled examples for `calibrate()`: each row's input, output and human label, from a
 * JSON, JSONL or CSV file or from objects in memory. Every problem names the file, line and
 * row, the field, and what to do: a missing field, a blank input or output, a missing label, a
 * third label value, or no row with the positive label.
 * @throws ConfigError for options that cannot work, or a file that cannot be read.
 * @throws DatasetFileError (code `INVALID_TEST_CASE`) for a bad record or an empty file.
 * @example
 * const { rows } = await readLabelledRows({ data: "labels.jsonl", labelField: "is_toxic", positiveLabel: true });
 */
export async function readLabelledRows(options: ReadLabelledRowsOptions): Promise<LabelledRows> {
  const fields = {
    input: checkField("inputField", options.inputField, "input"),
    output: checkField("outputField", options.outputField, "actual_output"),
    label: checkField("labelField", options.labelField, "label"),
    id: checkField("idField", options.idField, "id"),
  };
  const positiveLabel = labelText(options.positiveLabel ?? "1", "positiveLabel");
  const negativeLabel =
    options.negativeLabel === undefined ? null : labelText(options.negativeLabel, "negativeLabel");
  if (negativeLabel === positiveLabel) {
    throw new ConfigError(
      `positiveLabel and negativeLabel are both "${positiveLabel}": give the negative class its own label.`,
    );
  }
  const limit = options.limit;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new ConfigError(`limit must be a whole number of at least 1; got ${String(limit)}.`);
  }
  const path = typeof options.data === "string" ? options.data : null;
  const fail = (place: Place | null, problem: string): EvalError =>
    path === null
      ? new ConfigError(`${place === null ? "data" : `data[${place.item}]`}: ${problem}`)
      : recordError({
          location: { path, line: place?.line ?? null, item: place?.item ?? null, itemNoun: "row" },
          problem,
        });
  const required = options.requiredFields ?? ["input", "actualOutput"];
  const needsOutput = required.includes("actualOutput");
  const raw = await readRawRows({ options, path, fields, needsOutput, fail });
  const rows: LabelledRow[] = [];
  const labelsSeen: string[] = [];
  for (const record of raw) {
    if (limit !== undefined && rows.length >= limit) break;
    const input = readText({ record, field: fields.input, option: "inputField", fail });
    const actualOutput =
      needsOutput || record.get(fields.output) !== undefined
        ? readText({ record, field: fields.output, option: "outputField", fail })
        : "";
    const reference = readReferenceFields({ get: record.get, csv: record.csv, required });
    if ("problem" in reference) throw fail(record, reference.problem);
    const label = readLabel({ record, field: fields.label, fail });
    if (label !== positiveLabel && !labelsSeen.includes(label)) {
      if (negativeLabel !== null && label !== negativeLabel) {
        throw fail(
          record,
          `the label "${label}" is neither the positive label "${positiveLabel}" nor the negative label "${negativeLabel}": fix the row, or leave it out.`,
        );
      }
      const other = labelsSeen[0];
      if (other !== undefined) {
        throw fail(
          record,
          `the label "${label}" is a third value after "${positiveLabel}" (positive) and "${other}": calibration compares two classes. Map every label to one of two values, or pass negativeLabel (--negative-label) to make any other value an error that names its row.`,
        );
      }
      labelsSeen.push(label);
    }
    const id = record.get(fields.id);
    rows.push({
      index: rows.length,
      line: record.line,
      id: typeof id === "string" || typeof id === "number" ? String(id) : null,
      input,
      actualOutput,
      ...reference,
      label,
      positive: label === positiveLabel,
    });
  }
  if (rows.length === 0) {
    if (path === null) {
      throw new ConfigError(
        'data is an empty list: pass objects with input, actual_output and label, e.g. [{ input: "Write a comment.", actual_output: "…", label: 1 }].',
      );
    }
    const format = formatOf(options);
    throw fail(
      null,
      `the file ${describeNoRecords(format)}, so it holds no rows: add ${SHAPES[format]}.`,
    );
  }
  const negative = negativeLabel ?? labelsSeen[0] ?? null;
  if (negativeLabel === null && !rows.some((row) => row.positive)) {
    throw fail(
      null,
      `no row has the positive label "${positiveLabel}" (the "${fields.label}" values are "${negative}"): pass the label that marks a positive row (toxic, biased or relevant) as positiveLabel (--positive-label).`,
    );
  }
  return { rows, fields, positiveLabel, negativeLabel: negative };
}

function formatOf(options: ReadLabelledRowsOptions): DatasetFormat {
  if (typeof options.data !== "string") return "json";
  return resolveDatasetFormat({
    path: options.data,
    ...(options.format ? { format: options.format } : {}),
  });
}

function checkField(option: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigError(
      `${option} must name a field, e.g. "${fallback}"; got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function labelText(value: unknown, option: string): string {
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") {
    return String(value);
  }
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  throw new ConfigError(
    `${option} must be a label value (text, a number or true/false), e.g. 1 or "toxic"; got ${JSON.stringify(value)}.`,
  );
}

async function readRawRows(options: {
  options: ReadLabelledRowsOptions;
  path: string | null;
  fields: LabelledRows["fields"];
  needsOutput: boolean;
  fail: (place: Place | null, problem: string) => EvalError;
}): Promise<Iterable<RawRow>> {
  const { path, fields, fail } = options;
  const data = options.options.data;
  if (path === null) {
    if (!Array.isArray(data)) {
      throw new ConfigError(
        "data must be a file path (.jsonl, .json or .csv) or an array of objects with input, actual_output and label.",
      );
    }
    return objectRows({ values: data.map((value, item) => ({ value, line: null, item })), fail });
  }
  const format = formatOf(options.options);
  const text = await readDatasetText({
    path,
    encoding: options.options.encoding,
    empty: `add ${SHAPES[format]}.`,
    holds: "rows",
  });
  if (format === "jsonl")
    return objectRows({ values: parseJsonLinesRecords({ text, path }), fail });
  if (format === "json") {
    const values = parseJsonRecords({
      text,
      path,
      itemNoun: "row",
      notArray: `a .json file of labelled rows must be ${SHAPES.json}; for one object per line, name the file .jsonl.`,
    });
    return objectRows({ values, fail });
  }
  const table = parseCsvTable({ text, path });
  if (table.rows.length === 0) {
    throw fail(
      null,
      `the file ${describeNoRecords("csv")}, so it holds no rows: add ${SHAPES.csv}.`,
    );
  }
  const listed = [...table.present].map((name) => `"${name}"`).join(", ");
  for (const [option, field] of [
    ["inputField (--input-field)", fields.input],
    ...(options.needsOutput ? [["outputField (--output-field)", fields.output] as const] : []),
    ["labelField (--label-field)", fields.label],
  ] as const) {
    if (!table.present.has(field)) {
      throw recordError({
        location: { path, line: 1, item: null },
        problem: `no column "${field}"; the header has ${listed}. Name the column "${field}", or pass its name as ${option}.`,
      });
    }
  }
  const missing = missingReferenceColumn({
    present: table.present,
    required: options.options.requiredFields ?? [],
  });
  if (missing !== null) {
    throw recordError({
      location: { path, line: 1, item: null },
      problem: `no column "${missing}"; the header has ${listed}. The metric judges it: add the column (list items separated by "|").`,
    });
  }
  return csvRows({ table, fail });
}

function* csvRows(options: {
  table: CsvTable;
  fail: (place: Place | null, problem: string) => EvalError;
}): Generator<RawRow> {
  const { table, fail } = options;
  const positions = new Map(table.names.map((name, position) => [name, position]));
  for (const [item, { cells, line }] of table.rows.entries()) {
    const widthProblem = csvRowWidthProblem({ cells, names: table.names });
    if (widthProblem !== null) throw fail({ line, item }, widthProblem);
    yield {
      line,
      item,
      csv: true,
      get: (field) => {
        const position = positions.get(field);
        return position === undefined ? undefined : cells[position];
      },
      keys: () => [...table.present],
    };
  }
}

function* objectRows(options: {
  values: Iterable<{ value: unknown; line: number | null; item: number }>;
  fail: (place: Place | null, problem: string) => EvalError;
}): Generator<RawRow> {
  for (const { value, line, item } of options.values) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw options.fail(
        { line, item },
        `expected an object with input, actual_output and label, got ${Array.isArray(value) ? "a list" : JSON.stringify(value)}.`,
      );
    }
    const record = value as Record<string, unknown>;
    yield {
      line,
      item,
      csv: false,
      get: (field) => record[field],
      keys: () => Object.keys(record),
    };
  }
}

function describeKeys(record: RawRow): string {
  const keys = record.keys();
  return keys.length === 0 ? "none" : keys.map((key) => `"${key}"`).join(", ");
}

function readText(options: {
  record: RawRow;
  field: string;
  option: string;
  fail: (place: Place | null, problem: string) => EvalError;
}): string {
  const { record, field, option, fail } = options;
  const value = record.get(field);
  if (value === undefined) {
    throw fail(
      record,
      `no "${field}" field (the row has ${describeKeys(record)}): add it, or pass the field's name as ${option}.`,
    );
  }
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") {
    throw fail(record, `"${field}" must be text; got ${JSON.stringify(value)}.`);
  }
  if (isBlankText(value)) {
    throw fail(
      record,
      `"${field}" is empty: every row needs a "${field}" to judge; fill it in or leave the row out.`,
    );
  }
  return value;
}

function readLabel(options: {
  record: RawRow;
  field: string;
  fail: (place: Place | null, problem: string) => EvalError;
}): string {
  const { record, field, fail } = options;
  const value = record.get(field);
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
    throw fail(
      record,
      `no label: "${field}" is ${value === undefined ? "missing" : "empty"} (the row has ${describeKeys(record)}). Label the row, leave it out, or pass the label's field as labelField (--label-field).`,
    );
  }
  if (typeof value === "string") return value.trim();
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") {
    return String(value);
  }
  throw fail(
    record,
    `"${field}" must be a label (text, a number or true/false); got ${JSON.stringify(value)}.`,
  );
}
