import type { Golden } from "../test-case/golden.ts";
import { parseJsonLinesRecords, parseJsonRecords } from "./dataset-records.ts";
import type { GoldenColumns, GoldenField } from "./golden-columns.ts";
import { matchColumns } from "./golden-columns.ts";
import {
  goldenFromRecord,
  type RecordLocation,
  type RecordValue,
  recordError,
  recordFromGolden,
} from "./golden-record.ts";

/** Options of {@link parseJsonGoldens} and {@link parseJsonLinesGoldens}. */
export interface ParseJsonGoldensOptions {
  /** The file's text. */
  text: string;
  /** The file, as given: shown in errors. */
  path: string;
  columns: GoldenColumns;
  /** Where relative image paths are resolved from: the file's folder. */
  baseDirectory: string;
}

function goldenFromJson(options: {
  record: unknown;
  columns: GoldenColumns;
  location: RecordLocation;
  baseDirectory: string;
}): Golden {
  const { record, columns, location, baseDirectory } = options;
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw recordError({
      location,
      problem: `expected an object with an "input", got ${Array.isArray(record) ? "a list" : JSON.stringify(record)}.`,
    });
  }
  const fields = record as Record<string, unknown>;
  const match = matchColumns({ columns, present: new Set(Object.keys(fields)) });
  const [conflict] = match.conflicts;
  if (conflict !== undefined) {
    throw recordError({
      location,
      problem: `"${conflict.field}" is given twice, as ${conflict.keys.map((key) => `"${key}"`).join(" and ")}: keep one.`,
    });
  }
  const values = new Map<GoldenField, RecordValue>();
  for (const [field, key] of match.keys) values.set(field, { key, value: fields[key] });
  if (!values.has("input"))
    values.set("input", { key: columns.input ?? "input", value: undefined });
  return goldenFromRecord({ values, location, baseDirectory });
}

/**
 * Goldens from a JSON file holding an array of objects. Errors name the file, the line
 * where the bad object starts and its index.
 * @throws DatasetFileError
 */
export function parseJsonGoldens(options: ParseJsonGoldensOptions): Golden[] {
  const { text, path } = options;
  const records = parseJsonRecords({
    text,
    path,
    notArray:
      'a .json dataset must be an array of objects ([{ "input": … }, …]); for one object per line, name the file .jsonl.',
  });
  return records.map(({ value, line, item }) =>
    goldenFromJson({ ...options, record: value, location: { path, line, item } }),
  );
}

/**
 * Goldens from a JSON Lines file: one object per line, blank lines skipped. Errors name the
 * file and line.
 * @throws DatasetFileError
 */
export function parseJsonLinesGoldens(options: ParseJsonGoldensOptions): Golden[] {
  const { text, path } = options;
  return Array.from(parseJsonLinesRecords({ text, path }), ({ value, line, item }) =>
    goldenFromJson({ ...options, record: value, location: { path, line, item } }),
  );
}

/** Options of {@link stringifyJsonGoldens} and {@link stringifyJsonLinesGoldens}. */
export interface StringifyJsonGoldensOptions {
  goldens: readonly Golden[];
  columns: GoldenColumns;
  /** The folder of the file being written: image paths inside it are written relative. */
  directory: string;
}

function records(options: StringifyJsonGoldensOptions): Array<Record<string, unknown>> {
  return options.goldens.map((golden, index) => recordFromGolden({ ...options, golden, index }));
}

/** A pretty-printed JSON array of goldens (2-space indent, trailing newline). */
export function stringifyJsonGoldens(options: StringifyJsonGoldensOptions): string {
  return `${JSON.stringify(records(options), null, 2)}\n`;
}

/** JSON Lines: one golden per line. */
export function stringifyJsonLinesGoldens(options: StringifyJsonGoldensOptions): string {
  return records(options)
    .map((record) => `${JSON.stringify(record)}\n`)
    .join("");
}
