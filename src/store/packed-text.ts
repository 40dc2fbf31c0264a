import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";

// Quality 5 of 11: most of Brotli's gain on prompts (about half their size) at a small part
// of the time of its best (measured in bench/judge-text-size.ts).
const QUALITY = 5;

/**
 * A text as the SQLite store keeps a judge's prompt or answer: UTF-8, Brotli-compressed. The
 * prompts of a run repeat their metric's instructions case after case; SQLite compresses
 * nothing by itself (PostgreSQL does, so its store keeps text).
 */
export function packText(text: string): Uint8Array {
  return brotliCompressSync(Buffer.from(text, "utf8"), {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
}

/** The text {@link packText} packed. */
export function unpackText(packed: Uint8Array): string {
  return brotliDecompressSync(packed).toString("utf8");
}
