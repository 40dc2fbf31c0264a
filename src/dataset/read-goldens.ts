import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors/config-error.ts";
import type { Golden } from "../test-case/golden.ts";
import { parseCsvGoldens } from "./csv-goldens.ts";
import { type DatasetFormat, resolveDatasetFormat } from "./dataset-format.ts";
import { checkColumns, type GoldenColumns } from "./golden-columns.ts";
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
  /** Text encoding of the file; a byte-order mark is skipped. @default "utf8" */
  encoding?: BufferEncoding;
  /** CSV only: separates the items of `context`, `retrievalContext` and `tags` cells. @default "|" */
  listDelimiter?: string;
}

/**
 * Reads the goldens of a JSON, JSONL or CSV file. Image parts' relative paths (JSON, JSONL)
 * are resolved against the file's folder.
 * @throws ConfigError for an unknown format or column mapping, or a file that cannot be read.
 * @throws DatasetFileError (code `INVALID_TEST_CASE`) for a bad record, with file and line.
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
  let text: string;
  try {
    text = await readFile(path, { encoding: options.encoding ?? "utf8" });
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
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const parseOptions = { text, path, columns, baseDirectory: dirname(resolve(path)) };
  switch (format) {
    case "json":
      return parseJsonGoldens(parseOptions);
    case "jsonl":
      return parseJsonLinesGoldens(parseOptions);
    case "csv":
      return parseCsvGoldens({ ...parseOptions, listDelimiter });
  }
}
