import { dirname, resolve } from "node:path";
import type { Golden } from "../test-case/golden.ts";
import { parseCsvGoldens } from "./csv-goldens.ts";
import { type DatasetFormat, resolveDatasetFormat } from "./dataset-format.ts";
import { describeNoRecords, readDatasetText } from "./dataset-records.ts";
import { checkColumns, type GoldenColumns } from "./golden-columns.ts";
import { recordError } from "./golden-record.ts";
import { parseJsonGoldens, parseJsonLinesGoldens } from "./json-goldens.ts";
import { checkListDelimiter } from "./list-cell.ts";

/** Options of {@link readGoldens} (and `EvaluationDataset.fromFile` / `addGoldensFromFile`). */
export interface ReadGoldensOptions {
  /** The dataset file. */
  path: string;
  /** @default from the extension: `.json` (an array of objects), `.jsonl` or `.csv` */
  format?: DatasetFormat;
  /**
   * Column (CSV) or key (JSON) name of each golden field where it is not the field's name,
   * e.g. `{ input: "question", expectedOutput: "answer" }`. Unmapped fields are read from
   * their own name or its snake_case form (`expected_output`, `retrieval_context`, …);
   * other columns are ignored.
   */
  columns?: GoldenColumns;
  /**
   * Text encoding of the file. A byte-order mark is skipped, and one of UTF-16 (LE or BE)
   * decodes the file as UTF-16 whatever this says.
   * @default "utf8"
   */
  encoding?: BufferEncoding;
  /** CSV only: separates the items of `context`, `retrievalContext` and `tags` cells. @default "|" */
  listDelimiter?: string;
}

/**
 * Reads the goldens of a JSON, JSONL or CSV file. Image parts' relative paths (JSON, JSONL)
 * are resolved against the file's folder.
 * @throws ConfigError for an unknown format or column mapping, or a file that cannot be read.
 * @throws DatasetFileError (code `INVALID_TEST_CASE`) for a bad record, with file and line;
 * for a file that is empty or holds no goldens (in every format); for text that cannot be
 * decoded (invalid UTF-8, UTF-32, NUL bytes).
 * @example
 * const goldens = await readGoldens({ path: "goldens.csv", columns: { input: "question" } });
 */
export async function readGoldens(options: ReadGoldensOptions): Promise<Golden[]> {
  const { path } = options;
  const format = resolveDatasetFormat({
    path,
    ...(options.format ? { format: options.format } : {}),
  });
  const columns = checkColumns(options.columns);
  const listDelimiter = checkListDelimiter(options.listDelimiter);
  const text = await readDatasetText({
    path,
    encoding: options.encoding,
    empty: EXAMPLES[format],
    holds: "goldens",
  });
  const parseOptions = { text, path, columns, baseDirectory: dirname(resolve(path)) };
  const goldens =
    format === "json"
      ? parseJsonGoldens(parseOptions)
      : format === "jsonl"
        ? parseJsonLinesGoldens(parseOptions)
        : parseCsvGoldens({ ...parseOptions, listDelimiter });
  if (goldens.length === 0) {
    throw recordError({
      location: { path, line: null, item: null },
      problem: `the file ${describeNoRecords(format)}, so it holds no goldens: ${EXAMPLES[format]}`,
    });
  }
  return goldens;
}

const EXAMPLES: Record<DatasetFormat, string> = {
  csv: 'add a header and a row per golden, e.g. "input,expected_output" then "What is 2+2?,4".',
  json: 'add an array of goldens, e.g. [{ "input": "What is 2+2?", "expected_output": "4" }].',
  jsonl: 'add one golden per line, e.g. { "input": "What is 2+2?", "expected_output": "4" }.',
};
