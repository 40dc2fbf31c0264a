import { extname } from "node:path";
import { ConfigError } from "../errors/config-error.ts";

/** File formats a dataset of goldens is read from and saved to. */
export type DatasetFormat = "json" | "jsonl" | "csv";

const FORMATS: readonly DatasetFormat[] = ["json", "jsonl", "csv"];

/**
 * The format to use for a dataset file: the one given, else the one its extension names
 * (`.json`, `.jsonl`, `.csv`, any case).
 * @throws ConfigError when neither tells a known format.
 */
export function resolveDatasetFormat(options: { path: string; format?: string }): DatasetFormat {
  const { path, format } = options;
  if (format !== undefined) {
    if ((FORMATS as readonly string[]).includes(format)) return format as DatasetFormat;
    throw new ConfigError(
      `Dataset format "${format}" is not supported: use "json" (an array of objects), "jsonl" or "csv".`,
    );
  }
  const extension = extname(path).slice(1).toLowerCase();
  if ((FORMATS as readonly string[]).includes(extension)) return extension as DatasetFormat;
  throw new ConfigError(
    `Cannot tell the dataset format of "${path}" from its extension: name it .json, .jsonl or .csv, or pass format: "json" | "jsonl" | "csv".`,
  );
}
