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
  return brotliCompressSync(utf8Of(text), {
    chunkSize: OUTPUT_CHUNK_BYTES,
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
}

// A store packs every prompt and answer of a run, thousands a minute. Each packing allocated
// a buffer of the text's UTF-8 and a 16 KB one for the output, outside V8's heap and freed
// only when V8 collects their owners: between collections the allocator kept handing out
// fresh memory, and a 10,000-case run into SQLite peaked about 65 MB higher for it. The text
// is now written into one buffer kept for the purpose (up to 64 KB of UTF-8; a longer one
// gets its own), and the output comes in chunks small enough for Node's buffer pool. The
// packed bytes are the same.
const SCRATCH_LIMIT_BYTES = 64 * 1024;
const OUTPUT_CHUNK_BYTES = 1024;
let scratch: Buffer | null = null;

/** The text as UTF-8, in the packing buffer when it fits (valid until the next call). */
function utf8Of(text: string): Buffer {
  // A UTF-16 code unit takes at most 3 bytes of UTF-8.
  const most = text.length * 3;
  if (most > SCRATCH_LIMIT_BYTES) return Buffer.from(text, "utf8");
  scratch ??= Buffer.allocUnsafeSlow(SCRATCH_LIMIT_BYTES);
  return scratch.subarray(0, scratch.write(text, "utf8"));
}

/** The text {@link packText} packed. */
export function unpackText(packed: Uint8Array): string {
  return brotliDecompressSync(packed).toString("utf8");
}
