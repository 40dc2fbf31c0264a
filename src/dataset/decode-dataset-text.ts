import { recordError } from "./golden-record.ts";
import { lineIndex } from "./line-index.ts";

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const startsWith = (bytes: Uint8Array, prefix: readonly number[]) =>
  prefix.every((byte, index) => bytes[index] === byte);

/**
 * The text of a dataset file's bytes: UTF-8 by default (a byte-order mark skipped), UTF-16
 * LE or BE when a byte-order mark says so, or the encoding given. What cannot be decoded is
 * named as the cause, with the line: UTF-32, invalid UTF-8, NUL bytes (UTF-16 without a
 * byte-order mark, or a binary file).
 * @throws DatasetFileError
 */
export function decodeDatasetText(options: {
  bytes: Uint8Array;
  path: string;
  /** An encoding the caller chose; `undefined` or `"utf8"` for the default. */
  encoding: BufferEncoding | undefined;
}): string {
  const { bytes, path } = options;
  const fail = (line: number | null, problem: string) =>
    recordError({ location: { path, line, item: null }, problem });
  if (startsWith(bytes, [0xff, 0xfe, 0, 0]) || startsWith(bytes, [0, 0, 0xfe, 0xff])) {
    throw fail(1, "the file is UTF-32, which is not supported: save it as UTF-8.");
  }
  if (startsWith(bytes, [0xff, 0xfe])) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (startsWith(bytes, [0xfe, 0xff])) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  const encoding = options.encoding?.toLowerCase().replace("-", "");
  if (encoding !== undefined && encoding !== "utf8") {
    return Buffer.from(bytes)
      .toString(options.encoding)
      .replace(/^\uFEFF/, "");
  }
  const body = startsWith(bytes, UTF8_BOM) ? bytes.subarray(3) : bytes;
  const nul = body.indexOf(0);
  if (nul !== -1) {
    throw fail(
      lineIndex(body)(nul),
      "the file holds NUL bytes: it looks like UTF-16 without a byte-order mark, or not a text file. Save it as UTF-8 (or UTF-16 with a byte-order mark).",
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    const bad = firstInvalidUtf8(body);
    throw fail(
      lineIndex(body)(bad),
      `the file is not valid UTF-8 (byte 0x${(body[bad] ?? 0).toString(16).padStart(2, "0")}): save it as UTF-8, or pass its encoding, e.g. encoding: "latin1".`,
    );
  }
}

/** Offset of the first byte that does not start or continue a UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let offset = 0;
  while (offset < bytes.length) {
    const byte = bytes[offset] as number;
    const length =
      byte < 0x80 ? 1 : byte >> 5 === 6 ? 2 : byte >> 4 === 14 ? 3 : byte >> 3 === 30 ? 4 : 0;
    if (length === 0) return offset;
    for (let next = 1; next < length; next++) {
      if (((bytes[offset + next] ?? 0) & 0xc0) !== 0x80) return offset;
    }
    offset += length;
  }
  return Math.max(0, bytes.length - 1);
}
