import { brotliCompressSync, constants } from "node:zlib";
import { describe, expect, it } from "vitest";
import { packText, unpackText } from "./packed-text.ts";

/** What packText wrote before it kept a buffer for the text: the same bytes are expected. */
function packedAsBefore(text: string): Buffer {
  return brotliCompressSync(Buffer.from(text, "utf8"), {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
}

describe("packText", () => {
  const texts = [
    "",
    "short",
    `You judge whether each opinion is toxic … ${"Opinions: [“a”, ‘b’] 😀 ".repeat(400)}`,
    "x".repeat(70_000),
    "…".repeat(22_000),
    "a reply after a long one",
  ];

  it("packs each text, one after another, into bytes that unpack to it", () => {
    const packed = texts.map((text) => packText(text));
    expect(packed.map((bytes) => unpackText(bytes))).toEqual(texts);
  });

  it("writes the same bytes as packing the text's own UTF-8 did", () => {
    for (const text of texts) expect(Buffer.from(packText(text))).toEqual(packedAsBefore(text));
  });
});
