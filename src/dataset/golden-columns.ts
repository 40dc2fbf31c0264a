import { ConfigError } from "../errors/config-error.ts";
import type { GoldenFields } from "../test-case/golden.ts";

/** The name of a golden field: `input`, `actualOutput`, `retrievalContext`, … */
export type GoldenField = keyof GoldenFields;

/** Every golden field, in the order files are written. */
export const GOLDEN_FIELDS: readonly GoldenField[] = [
  "input",
  "actualOutput",
  "expectedOutput",
  "context",
  "retrievalContext",
  "toolsCalled",
  "expectedTools",
  "name",
  "tags",
  "metadata",
  "comments",
];

/**
 * Column (CSV) or key (JSON, JSONL) name for each golden field, where it is not the field's
 * own name, e.g. `{ input: "question", expectedOutput: "answer" }`.
 */
export type GoldenColumns = Partial<Record<GoldenField, string>>;

// Files written by deepeval, pandas and friends use snake_case: read those too.
const ALIASES: Partial<Record<GoldenField, readonly string[]>> = {
  actualOutput: ["actual_output"],
  expectedOutput: ["expected_output"],
  retrievalContext: ["retrieval_context"],
  toolsCalled: ["tools_called"],
  expectedTools: ["expected_tools"],
  metadata: ["additional_metadata"],
};

/**
 * Checks a column mapping: known fields only, non-empty names, no column used twice.
 * @throws ConfigError naming the bad entry and the known fields.
 */
export function checkColumns(columns: GoldenColumns | undefined): GoldenColumns {
  if (columns === undefined) return {};
  if (typeof columns !== "object" || columns === null || Array.isArray(columns)) {
    throw new ConfigError(
      'columns must be an object mapping golden fields to column names, e.g. { input: "question" }.',
    );
  }
  const fieldOf = new Map<string, string>();
  for (const [field, column] of Object.entries(columns)) {
    if (!(GOLDEN_FIELDS as readonly string[]).includes(field)) {
      throw new ConfigError(
        `Unknown column mapping "${field}": columns maps golden fields (${GOLDEN_FIELDS.join(", ")}) to column names.`,
      );
    }
    if (typeof column !== "string" || column.trim() === "") {
      throw new ConfigError(
        `Column mapping "${field}" must be a non-empty column name, got ${JSON.stringify(column)}.`,
      );
    }
    const other = fieldOf.get(column);
    if (other !== undefined) {
      throw new ConfigError(
        `Column "${column}" is mapped to both "${other}" and "${field}": give each field its own column.`,
      );
    }
    fieldOf.set(column, field);
  }
  return columns;
}

/** The name a field is written under. */
export function columnName(options: { columns: GoldenColumns; field: GoldenField }): string {
  return options.columns[options.field] ?? options.field;
}

/** Which key each field is read from, and what does not fit. */
export interface ColumnMatch {
  /** Field → the key (or column) it is read from, for the keys that are present. */
  keys: Map<GoldenField, string>;
  /** Explicit mappings whose key is not present. */
  missing: Array<{ field: GoldenField; key: string }>;
  /** Fields present under more than one default name, e.g. `expectedOutput` and `expected_output`. */
  conflicts: Array<{ field: GoldenField; keys: string[] }>;
}

/**
 * Matches golden fields to the keys present (a CSV header, or one JSON object's keys): an
 * explicit mapping first, else the field's own name, else its snake_case name.
 */
export function matchColumns(options: {
  columns: GoldenColumns;
  present: ReadonlySet<string>;
}): ColumnMatch {
  const { columns, present } = options;
  const match: ColumnMatch = { keys: new Map(), missing: [], conflicts: [] };
  const claimed = new Set(Object.values(columns));
  for (const field of GOLDEN_FIELDS) {
    const explicit = columns[field];
    if (explicit !== undefined) {
      if (present.has(explicit)) match.keys.set(field, explicit);
      else match.missing.push({ field, key: explicit });
      continue;
    }
    const candidates = [field, ...(ALIASES[field] ?? [])].filter(
      (key) => present.has(key) && !claimed.has(key),
    );
    const [first] = candidates;
    if (candidates.length > 1) match.conflicts.push({ field, keys: candidates });
    else if (first !== undefined) match.keys.set(field, first);
  }
  return match;
}
