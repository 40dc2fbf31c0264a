import { isAbsolute, relative, resolve, sep } from "node:path";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { toJsonValue, WHOLE_VALUE } from "../results/to-json-value.ts";
import { describeGolden, Golden, type GoldenFields } from "../test-case/golden.ts";
import { type Content, contentText, hasImages, type ImagePart, image } from "../test-case/image.ts";
import { isBlankText } from "../test-case/llm-test-case.ts";
import { DatasetFileError } from "./dataset-file-error.ts";
import {
  columnName,
  GOLDEN_FIELDS,
  type GoldenColumns,
  type GoldenField,
} from "./golden-columns.ts";

/** Where a record sits in its file, for error messages. */
export interface RecordLocation {
  path: string;
  line: number | null;
  item: number | null;
  /** What the records are, in messages. @default "golden" */
  itemNoun?: string | undefined;
}

/** A field's value as read from a file, with the key (or column) it came from. */
export interface RecordValue {
  key: string;
  value: unknown;
}

const CONTENT_FIELDS = new Set<GoldenField>(["input", "actualOutput", "expectedOutput"]);
const TEXT_FIELDS = new Set<GoldenField>(["name", "comments"]);
const LIST_FIELDS = new Set<GoldenField>(["context", "retrievalContext", "tags"]);
const TOOL_FIELDS = new Set<GoldenField>(["toolsCalled", "expectedTools"]);

/** A {@link DatasetFileError} at `location`. */
export function recordError(options: {
  location: RecordLocation;
  problem: string;
  cause?: unknown;
}): DatasetFileError {
  return new DatasetFileError({
    ...options.location,
    problem: options.problem,
    cause: options.cause,
  });
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return typeof value === "string" ? `a string ${JSON.stringify(value)}` : String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readImagePart(options: {
  value: Record<string, unknown>;
  baseDirectory: string;
}): ImagePart | string {
  const { value, baseDirectory } = options;
  const { url, path, mediaType } = value;
  if (mediaType !== undefined && typeof mediaType !== "string") return "has a non-string mediaType";
  const imageOptions = mediaType === undefined ? {} : { mediaType };
  // image() checks URLs, data: URLs and media types at once: its error becomes this record's.
  try {
    if (typeof url === "string" && url.trim() !== "" && path === undefined)
      return image(url, imageOptions);
    if (typeof path === "string" && path.trim() !== "" && url === undefined) {
      return image(isAbsolute(path) ? path : resolve(baseDirectory, path), imageOptions);
    }
  } catch (error) {
    return `is unusable: ${(error as Error).message.replace(/^image\(\): /, "").replace(/\.$/, "")}`;
  }
  return 'needs exactly one of "url" or "path", a non-empty string';
}

type ReadResult = { value: unknown } | { problem: string };

function readContent(options: { value: unknown; key: string; baseDirectory: string }): ReadResult {
  const { value, key, baseDirectory } = options;
  if (typeof value === "string") return { value };
  if (!Array.isArray(value)) {
    return {
      problem: `"${key}" must be text, or a list of text and { "type": "image", "url" | "path" } parts; got ${describeValue(value)}.`,
    };
  }
  const parts: Array<string | ImagePart> = [];
  for (const [index, part] of value.entries()) {
    if (typeof part === "string") {
      parts.push(part);
      continue;
    }
    if (!isPlainObject(part) || part.type !== "image") {
      return {
        problem: `"${key}" part ${index} must be text or { "type": "image", "url" | "path" }; got ${describeValue(part)}.`,
      };
    }
    const imagePart = readImagePart({ value: part, baseDirectory });
    if (typeof imagePart === "string") {
      return { problem: `"${key}" part ${index} (an image) ${imagePart}.` };
    }
    parts.push(imagePart);
  }
  return { value: parts };
}

function readValue(options: {
  field: GoldenField;
  key: string;
  value: unknown;
  baseDirectory: string;
}): ReadResult {
  const { field, key, value } = options;
  if (CONTENT_FIELDS.has(field)) return readContent(options);
  if (TEXT_FIELDS.has(field)) {
    return typeof value === "string"
      ? { value }
      : { problem: `"${key}" must be text, got ${describeValue(value)}.` };
  }
  if (LIST_FIELDS.has(field)) {
    return Array.isArray(value) && value.every((item) => typeof item === "string")
      ? { value }
      : { problem: `"${key}" must be a list of strings, got ${describeValue(value)}.` };
  }
  if (TOOL_FIELDS.has(field)) {
    return Array.isArray(value) &&
      value.every((tool) => isPlainObject(tool) && typeof tool.name === "string")
      ? { value }
      : {
          problem: `"${key}" must be a list of tool calls, each an object with a "name" string, got ${describeValue(value)}.`,
        };
  }
  return isPlainObject(value)
    ? { value }
    : { problem: `"${key}" must be an object, got ${describeValue(value)}.` };
}

/**
 * Makes a golden from the values read for each field (JSON values; CSV cells already
 * split and parsed), checking each against its field's type and naming the key when not.
 * `null` is an absent field. Image parts' relative paths are resolved against `baseDirectory`.
 * @throws DatasetFileError at `location`.
 */
export function goldenFromRecord(options: {
  values: ReadonlyMap<GoldenField, RecordValue>;
  location: RecordLocation;
  baseDirectory: string;
}): Golden {
  const { values, location, baseDirectory } = options;
  const fields: Record<string, unknown> = {};
  for (const [field, { key, value }] of values) {
    if (value === null || value === undefined) continue;
    const read = readValue({ field, key, value, baseDirectory });
    if ("problem" in read) throw recordError({ location, problem: read.problem });
    fields[field] = read.value;
  }
  const input = fields.input as Content | undefined;
  if (input === undefined || (isBlankText(contentText(input)) && !hasImages(input))) {
    const key = values.get("input")?.key ?? "input";
    throw recordError({
      location,
      problem: `"${key}" is ${input === undefined ? "missing" : "empty"}: every row needs an input.`,
    });
  }
  try {
    return new Golden(fields as unknown as GoldenFields);
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    throw recordError({ location, problem: error.message, cause: error });
  }
}

/** Fields a golden has, in file order. */
export function presentFields(golden: Golden): GoldenField[] {
  return GOLDEN_FIELDS.filter((field) => golden[field] !== undefined);
}

/**
 * An image part as JSON: `{ "type": "image", "url" | "path", "mediaType"? }`. A file path
 * inside `directory` is written relative to it (so the dataset folder can move), others
 * absolute.
 * @throws ConfigError for an image given as bytes: there is no file or URL to point at.
 */
function imagePartToJson(options: {
  part: ImagePart;
  directory: string;
  where: string;
}): Record<string, string> {
  const { part, directory, where } = options;
  const mediaType = part.mediaType === undefined ? {} : { mediaType: part.mediaType };
  switch (part.source.kind) {
    case "url":
    case "data-url":
      return { type: "image", url: part.source.url, ...mediaType };
    case "file": {
      const absolute = resolve(part.source.path);
      const inside = relative(directory, absolute);
      const path =
        inside !== "" && !inside.startsWith("..") && !isAbsolute(inside)
          ? inside.split(sep).join("/")
          : absolute;
      return { type: "image", path, ...mediaType };
    }
    case "bytes":
      throw new ConfigError(
        `${where} holds an image given as bytes, which a dataset file cannot point at: save the image to a file and use image(path), or a data: URL.`,
      );
  }
}

/** The JSON record of a golden (JSON and JSONL files), keys named by `columns`. */
export function recordFromGolden(options: {
  golden: Golden;
  index: number;
  columns: GoldenColumns;
  directory: string;
}): Record<string, unknown> {
  const { golden, index, columns, directory } = options;
  const record: Record<string, unknown> = {};
  for (const field of presentFields(golden)) {
    const value = golden[field];
    record[columnName({ columns, field })] =
      CONTENT_FIELDS.has(field) && Array.isArray(value)
        ? (value as ReadonlyArray<string | ImagePart>).map((part) =>
            typeof part === "string"
              ? part
              : imagePartToJson({
                  part,
                  directory,
                  where: `"${field}" of ${describeGolden({ golden, index })}`,
                }),
          )
        : toJsonValue(value, WHOLE_VALUE);
  }
  return record;
}
