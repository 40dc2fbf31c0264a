import { isBlankText } from "../test-case/llm-test-case.ts";
import { DEFAULT_LIST_DELIMITER, splitListCell } from "./list-cell.ts";

/** Fields a labelled row may carry besides its input and output, for metrics that judge them. */
export interface LabelledRowContext {
  /** `retrieval_context`: what a RAG pipeline retrieved (Faithfulness judges against it). */
  retrievalContext?: string[];
  /** `context`: the ideal background of the answer. */
  context?: string[];
  /** `expected_output`: the ideal answer. */
  expectedOutput?: string;
}

/** The row fields of {@link LabelledRowContext}, as a data file names them. */
export const CONTEXT_FIELDS = {
  retrievalContext: "retrieval_context",
  context: "context",
  expectedOutput: "expected_output",
} as const satisfies Record<keyof LabelledRowContext, string>;

/**
 * Reads a row's optional context fields: a list of texts, or one text (a one-item list); in a
 * CSV cell, items separated by "|" (`\|` for a "|" inside one), as in golden files. Blank
 * values are absent. Returns the problem, naming the field, when a value is of another kind.
 */
export function readLabelledRowContext(options: {
  get: (field: string) => unknown;
  csv: boolean;
}): LabelledRowContext | { problem: string } {
  const context: LabelledRowContext = {};
  for (const [key, field] of Object.entries(CONTEXT_FIELDS)) {
    const value = options.get(field);
    if (value === undefined || value === null) continue;
    if (key === "expectedOutput") {
      if (typeof value !== "string") {
        return { problem: `"${field}" must be text; got ${JSON.stringify(value)}.` };
      }
      if (!isBlankText(value)) context.expectedOutput = value;
      continue;
    }
    let items: unknown = value;
    if (typeof value === "string") {
      items = options.csv
        ? splitListCell({ cell: value, delimiter: DEFAULT_LIST_DELIMITER })
        : [value];
    }
    if (!Array.isArray(items) || !items.every((item) => typeof item === "string")) {
      return {
        problem: `"${field}" must be a list of texts (or one text); got ${JSON.stringify(value)}.`,
      };
    }
    const texts = items.filter((item) => !isBlankText(item));
    if (texts.length > 0) context[key as "retrievalContext" | "context"] = texts;
  }
  return context;
}
