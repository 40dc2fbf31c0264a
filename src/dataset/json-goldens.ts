import type { Golden } from "../test-case/golden.ts";
import type { GoldenColumns, GoldenField } from "./golden-columns.ts";
import { matchColumns } from "./golden-columns.ts";
import {
  goldenFromRecord,
  type RecordLocation,
  type RecordValue,
  recordError,
  recordFromGolden,
} from "./golden-record.ts";
import { lineIndex } from "./line-index.ts";

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
}): Error {
  const { error, text, path } = options;
  const message = (error as Error).message.replace(/\.$/, "");
  const location: RecordLocation = { path, line: options.line, item: null };
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

function parseJsonText(options: { text: string; path: string; line: number | null }): unknown {
  try {
    return JSON.parse(options.text);
  } catch (error) {
    throw invalidJson({ ...options, error });
  }
}

/**
 * Goldens from a JSON file holding an array of objects. Errors name the file, the line
 * where the bad object starts and its index.
 * @throws DatasetFileError
 */
export function parseJsonGoldens(options: ParseJsonGoldensOptions): Golden[] {
  const { text, path } = options;
  const data = parseJsonText({ text, path, line: null });
  if (!Array.isArray(data)) {
    throw recordError({
      location: { path, line: 1, item: null },
      problem:
        'a .json dataset must be an array of objects ([{ "input": … }, …]); for one object per line, name the file .jsonl.',
    });
  }
  const offsets = arrayItemOffsets(text);
  const lineAt = lineIndex(text);
  return data.map((record, item) => {
    const offset = offsets[item];
    const location = { path, line: offset === undefined ? null : lineAt(offset), item };
    return goldenFromJson({ ...options, record, location });
  });
}

/**
 * Goldens from a JSON Lines file: one object per line, blank lines skipped. Errors name the
 * file and line.
 * @throws DatasetFileError
 */
export function parseJsonLinesGoldens(options: ParseJsonGoldensOptions): Golden[] {
  const { text, path } = options;
  const goldens: Golden[] = [];
  for (const [index, lineText] of text.split("\n").entries()) {
    if (lineText.trim() === "") continue;
    const line = index + 1;
    const record = parseJsonText({ text: lineText, path, line });
    const location = { path, line, item: goldens.length };
    goldens.push(goldenFromJson({ ...options, record, location }));
  }
  return goldens;
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
