import { isBlankText, type TestCaseField } from "../test-case/llm-test-case.ts";
import { DEFAULT_LIST_DELIMITER, splitListCell } from "./list-cell.ts";

/** What a labelled row may hold beyond its input, output and label: what RAG metrics judge. */
export interface RowReferenceFields {
  expectedOutput?: string;
  context?: string[];
  retrievalContext?: string[];
}

type ReferenceField = keyof RowReferenceFields;

/** The keys (or CSV columns) each field is read from: deepeval's names first, then verdict's. */
const REFERENCE_KEYS: Readonly<Record<ReferenceField, readonly string[]>> = {
  expectedOutput: ["expected_output", "expectedOutput"],
  context: ["context"],
  retrievalContext: ["retrieval_context", "retrievalContext"],
};

const FIELDS = Object.keys(REFERENCE_KEYS) as ReferenceField[];

/** The column a CSV header lacks for a required reference field (its first name); else `null`. */
export function missingReferenceColumn(options: {
  present: ReadonlySet<string>;
  required: readonly TestCaseField[];
}): string | null {
  for (const field of FIELDS) {
    const keys = REFERENCE_KEYS[field];
    if (options.required.includes(field) && !keys.some((key) => options.present.has(key))) {
      return keys[0] as string;
    }
  }
  return null;
}

function describeValue(value: unknown): string {
  return Array.isArray(value) ? "a list" : JSON.stringify(value);
}

/**
 * Reads a row's expected output, context and retrieval context, wherever present (a blank
 * value or an empty CSV cell is absent): text for the expected output; for the lists, a JSON
 * list of texts, or in a CSV cell items separated by "|" (`\|` for a "|" inside an item).
 * Returns the problem instead when a field is of the wrong type, or missing while required.
 */
export function readReferenceFields(options: {
  get: (key: string) => unknown;
  /** True for a CSV row, whose cells are text. */
  csv: boolean;
  required: readonly TestCaseField[];
}): RowReferenceFields | { problem: string } {
  const fields: RowReferenceFields = {};
  for (const field of FIELDS) {
    const keys = REFERENCE_KEYS[field];
    const key = keys.find((candidate) => options.get(candidate) !== undefined) ?? keys[0];
    const value = options.get(key as string);
    const absent =
      value === undefined ||
      value === null ||
      (typeof value === "string" && isBlankText(value)) ||
      (Array.isArray(value) &&
        value.every((item) => typeof item === "string" && isBlankText(item)));
    if (absent) {
      if (options.required.includes(field)) {
        return {
          problem: `no "${key}" (${value === undefined ? "missing" : "empty"}): the metric judges it, so every row needs it.`,
        };
      }
      continue;
    }
    if (field === "expectedOutput") {
      if (typeof value !== "string" && !(typeof value === "number" && Number.isFinite(value))) {
        return { problem: `"${key}" must be text; got ${describeValue(value)}.` };
      }
      fields.expectedOutput = String(value);
      continue;
    }
    const items =
      options.csv && typeof value === "string"
        ? splitListCell({ cell: value, delimiter: DEFAULT_LIST_DELIMITER })
        : value;
    if (!Array.isArray(items) || !items.every((item) => typeof item === "string")) {
      return {
        problem: `"${key}" must be a list of texts (in a CSV cell, separated by "|"); got ${describeValue(value)}.`,
      };
    }
    fields[field] = items;
  }
  return fields;
}
