import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors/config-error.ts";
import { describeGolden, type Golden } from "../test-case/golden.ts";
import { contentText, hasImages } from "../test-case/image.ts";
import { isBlankText } from "../test-case/llm-test-case.ts";
import { stringifyCsvGoldens } from "./csv-goldens.ts";
import { type DatasetFormat, resolveDatasetFormat } from "./dataset-format.ts";
import { checkColumns, type GoldenColumns } from "./golden-columns.ts";
import { stringifyJsonGoldens, stringifyJsonLinesGoldens } from "./json-goldens.ts";
import { checkListDelimiter } from "./list-cell.ts";

/** Options of {@link writeGoldens} (and `EvaluationDataset.save`). */
export interface WriteGoldensOptions {
  /** The file to write; missing folders are created, an existing file is replaced. */
  path: string;
  /** @default from the extension: `.json`, `.jsonl` or `.csv` */
  format?: DatasetFormat;
  /** Column (CSV) or key (JSON) name of each golden field. @default the field names */
  columns?: GoldenColumns;
  /** @default "utf8" */
  encoding?: BufferEncoding;
  /** CSV only: joins the items of `context`, `retrievalContext` and `tags`. @default "|" */
  listDelimiter?: string;
}

/**
 * Writes goldens as a pretty-printed JSON array, JSON Lines, or CSV with a header, so that
 * {@link readGoldens} reads back the same goldens. Image parts are written as
 * `{ "type": "image", "url" | "path" }` (file paths inside the file's folder relative to it).
 * Metadata and tool calls that JSON cannot hold (cycles, bigints, functions, dates, …) are
 * written converted (`"[Circular]"`, `"123n"`, …).
 * @throws ConfigError for what the format cannot hold unchanged (CSV: image parts, empty
 * strings and empty lists, NUL characters; any format: images given as bytes, an empty input), and for an
 * empty dataset (reading it back would fail).
 * @example
 * await writeGoldens({ path: "goldens.jsonl", goldens: dataset.goldens });
 */
export async function writeGoldens(
  options: WriteGoldensOptions & { goldens: readonly Golden[] },
): Promise<void> {
  const { path, goldens } = options;
  const format = resolveDatasetFormat({
    path,
    ...(options.format ? { format: options.format } : {}),
  });
  const columns = checkColumns(options.columns);
  const listDelimiter = checkListDelimiter(options.listDelimiter);
  if (goldens.length === 0) {
    throw new ConfigError(
      `Cannot save an empty dataset to "${path}": a dataset file with no goldens is refused when read. Add goldens first.`,
    );
  }
  for (const [index, golden] of goldens.entries()) {
    if (isBlankText(contentText(golden.input)) && !hasImages(golden.input)) {
      throw new ConfigError(
        `Cannot save ${describeGolden({ golden, index })}: its input is empty, and a dataset file needs an input on every golden to be read back. Give it an input or leave it out.`,
      );
    }
  }
  const directory = dirname(resolve(path));
  const text = render({ format, goldens, columns, listDelimiter, directory });
  await mkdir(directory, { recursive: true });
  await writeFile(path, text, { encoding: options.encoding ?? "utf8" });
}

function render(options: {
  format: DatasetFormat;
  goldens: readonly Golden[];
  columns: GoldenColumns;
  listDelimiter: string;
  directory: string;
}): string {
  switch (options.format) {
    case "json":
      return stringifyJsonGoldens(options);
    case "jsonl":
      return stringifyJsonLinesGoldens(options);
    case "csv":
      return stringifyCsvGoldens(options);
  }
}
