/** What {@link sniffImage} found: a media type, or why the bytes are not a usable image. */
export type SniffedImage = { mediaType: string } | { problem: string };

interface ImageFormat {
  name: string;
  mediaType: string;
  /** The first bytes every file of the format starts with (`null`: any byte). */
  signature: ReadonlyArray<number | null>;
  /** Fewer bytes than this cannot hold the format's header. */
  minimumBytes: number;
  /** A further check of the header, once the signature matched. */
  header?: (data: Uint8Array) => boolean;
}

const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

const FORMATS: readonly ImageFormat[] = [
  {
    name: "PNG",
    mediaType: "image/png",
    signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    // Signature, then the IHDR chunk: length, type, 13 bytes of data, CRC.
    minimumBytes: 33,
    header: (data) => String.fromCharCode(...data.subarray(12, 16)) === "IHDR",
  },
  // Start of image, then the first marker (APPn, DQT, SOF, …).
  {
    name: "JPEG",
    mediaType: "image/jpeg",
    signature: [0xff, 0xd8, 0xff],
    minimumBytes: 4,
    header: (data) => (data[3] as number) >= 0xc0,
  },
  {
    name: "GIF",
    mediaType: "image/gif",
    signature: ascii("GIF8"),
    // Header and logical screen descriptor.
    minimumBytes: 13,
    header: (data) => (data[4] === 0x37 || data[4] === 0x39) && data[5] === 0x61,
  },
  {
    name: "WebP",
    mediaType: "image/webp",
    signature: [...ascii("RIFF"), null, null, null, null, ...ascii("WEBP")],
    // RIFF header, then the first chunk's header (VP8, VP8L or VP8X).
    minimumBytes: 20,
    header: (data) => String.fromCharCode(...data.subarray(12, 15)) === "VP8",
  },
  // File header and the size field of the DIB header.
  {
    name: "BMP",
    mediaType: "image/bmp",
    signature: ascii("BM"),
    minimumBytes: 18,
    // Reserved bytes are zero; the DIB header has one of the known sizes.
    header: (data) =>
      data.subarray(6, 10).every((byte) => byte === 0) &&
      [12, 40, 52, 56, 64, 108, 124].includes(
        new DataView(data.buffer, data.byteOffset + 14, 4).getUint32(0, true),
      ),
  },
];

const startsWith = (data: Uint8Array, signature: ReadonlyArray<number | null>) =>
  signature.every((byte, index) => index >= data.length || byte === null || data[index] === byte);

/** The formats {@link sniffImage} recognises, for messages. */
export const SNIFFED_FORMATS = "PNG, JPEG, GIF, WebP, BMP or SVG";

/** Media types whose content {@link sniffImage} can check. */
export const SNIFFED_MEDIA_TYPES: ReadonlySet<string> = new Set([
  ...FORMATS.map((format) => format.mediaType),
  "image/jpg",
  "image/svg+xml",
]);

function looksLikeSvg(data: Uint8Array): boolean {
  const head = new TextDecoder().decode(data.subarray(0, 1024)).replace(/^\uFEFF/, "");
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(
    head,
  );
}

/** A few words on what non-image bytes look like, so a wrong file is recognised. */
function describeContent(data: Uint8Array): string {
  const head = data.subarray(0, 64);
  const printable = head.every(
    (byte) => byte === 0x09 || byte === 0x0a || byte === 0x0d || (byte >= 0x20 && byte !== 0x7f),
  );
  if (!printable) {
    const hex = [...data.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, "0"));
    return `its first bytes are ${hex.join(" ")}`;
  }
  const text = new TextDecoder().decode(head).replace(/\s+/g, " ").trim();
  if (/^<(!doctype html|html)/i.test(text)) return "it is an HTML page";
  return `it is text: ${JSON.stringify(text.length > 30 ? `${text.slice(0, 30)}…` : text)}`;
}

/**
 * Tells an image's format from its first bytes (PNG, JPEG, GIF, WebP, BMP, SVG), or why
 * the bytes are no usable image: empty, a header cut short, or something else (text, HTML).
 */
export function sniffImage(data: Uint8Array): SniffedImage {
  if (data.length === 0) return { problem: "is empty (0 bytes)" };
  for (const format of FORMATS) {
    if (!startsWith(data, format.signature)) continue;
    // Two bytes ("BM") also start plain text: only a full header says BMP.
    const weak = format.signature.length < 3;
    const truncated = {
      problem: `is a truncated or damaged ${format.name} (${data.length} bytes; its header is incomplete)`,
    };
    if (data.length < format.signature.length) {
      if (data.length >= 2 && !weak) return truncated;
      continue;
    }
    if (data.length >= format.minimumBytes && (format.header?.(data) ?? true)) {
      return { mediaType: format.mediaType };
    }
    if (!weak) return truncated;
  }
  if (looksLikeSvg(data)) return { mediaType: "image/svg+xml" };
  return { problem: `is not an image (${describeContent(data)})` };
}

/**
 * The media type to send image bytes with: what their content says (it wins over a name or
 * a declared type), or — for a format that cannot be sniffed (AVIF, HEIC, TIFF, …) — the
 * declared `image/…` type. Otherwise why the bytes are no usable image.
 */
export function checkImageBytes(data: Uint8Array, declared: string | undefined): SniffedImage {
  const sniffed = sniffImage(data);
  if ("mediaType" in sniffed) return sniffed;
  const unsniffable =
    declared !== undefined &&
    /^image\/[\w.+-]+$/i.test(declared) &&
    !SNIFFED_MEDIA_TYPES.has(declared.toLowerCase());
  if (unsniffable && data.length > 0 && sniffed.problem.startsWith("is not an image")) {
    return { mediaType: declared };
  }
  return sniffed;
}
