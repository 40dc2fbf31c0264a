import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { EvalError } from "../errors/eval-error.ts";

/** Where an image comes from. */
export type ImageSource =
  | { kind: "url"; url: string }
  | { kind: "file"; path: string }
  | { kind: "data-url"; url: string }
  | { kind: "bytes"; data: Uint8Array };

/** An image inside a test case's `input` or `actualOutput`. Made with {@link image}. */
export interface ImagePart {
  readonly type: "image";
  readonly source: ImageSource;
  /** IANA media type, e.g. `image/png`; guessed from the file name or data when absent. */
  readonly mediaType?: string;
}

/** Text and images, in order: what `mm` and arrays of parts produce. */
export type MultimodalContent = ReadonlyArray<string | ImagePart>;

/** A test-case text field: a string, or text and images in order. */
export type Content = string | MultimodalContent;

/** Options of {@link image}. */
export interface ImageOptions {
  /** Media type, when the source does not make it clear. */
  mediaType?: string;
}

const MEDIA_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".svg": "image/svg+xml",
};

/**
 * Makes an image part from a URL (`http(s)://`), a file path (or `file://` URL), a `data:`
 * URL, or bytes.
 * @example
 * const testCase = new LLMTestCase({ input: mm`What is this? ${image("eiffel.jpg")}`, actualOutput: "…" });
 */
export function image(
  source: string | URL | Uint8Array | ArrayBuffer,
  options: ImageOptions = {},
): ImagePart {
  const mediaType = options.mediaType;
  const withType = (part: ImageSource): ImagePart =>
    mediaType === undefined
      ? { type: "image", source: part }
      : { type: "image", source: part, mediaType };
  if (source instanceof Uint8Array) return withType({ kind: "bytes", data: source });
  if (source instanceof ArrayBuffer)
    return withType({ kind: "bytes", data: new Uint8Array(source) });
  const text = source instanceof URL ? source.href : source;
  if (typeof text !== "string" || text.trim() === "") {
    throw new EvalError(
      "INVALID_TEST_CASE",
      "image() needs a URL, a file path, a data: URL or bytes; it got an empty value.",
    );
  }
  if (/^data:/i.test(text)) return withType({ kind: "data-url", url: text });
  if (/^https?:\/\//i.test(text)) return withType({ kind: "url", url: text });
  if (/^file:\/\//i.test(text)) return withType({ kind: "file", path: new URL(text).pathname });
  return withType({ kind: "file", path: text });
}

/** True when `value` is an image part made by {@link image}. */
export function isImagePart(value: unknown): value is ImagePart {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "image" &&
    typeof (value as { source?: unknown }).source === "object"
  );
}

/**
 * Tagged template for text with images: ``mm`Tell me about ${image("eiffel.jpg")}` ``.
 * Interpolated image parts stay parts; every other value becomes text.
 */
export function mm(strings: TemplateStringsArray, ...values: unknown[]): MultimodalContent {
  const parts: Array<string | ImagePart> = [];
  const pushText = (text: string) => {
    if (text === "") return;
    const last = parts[parts.length - 1];
    if (typeof last === "string") parts[parts.length - 1] = last + text;
    else parts.push(text);
  };
  strings.forEach((text, index) => {
    pushText(text);
    if (index < values.length) {
      const value = values[index];
      if (isImagePart(value)) parts.push(value);
      else pushText(String(value));
    }
  });
  return parts;
}

/** Placeholder that stands for the n-th image (1-based) in a rendered prompt. */
export function imagePlaceholder(position: number): string {
  return `[image ${position}]`;
}

/**
 * Renders content as prompt text: images become `[image N]` placeholders and are appended
 * to `images` (so numbering continues across several fields of one prompt).
 */
export function renderContent(content: Content, images: ImagePart[]): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => {
      if (typeof part === "string") return part;
      images.push(part);
      return imagePlaceholder(images.length);
    })
    .join("");
}

/** The text of content with images left out (for emptiness checks and reports). */
export function contentText(content: Content): string {
  if (typeof content === "string") return content;
  return content.filter((part): part is string => typeof part === "string").join("");
}

/** True when content holds at least one image. */
export function hasImages(content: Content | undefined): boolean {
  return content !== undefined && typeof content !== "string" && content.some(isImagePart);
}

/** An image ready to send: bytes with a media type, or a remote URL. */
export type LoadedImage =
  | { kind: "url"; url: URL; mediaType: string | undefined }
  | { kind: "bytes"; data: Uint8Array; mediaType: string };

function sniffMediaType(data: Uint8Array): string | undefined {
  const startsWith = (...bytes: number[]) => bytes.every((byte, index) => data[index] === byte);
  if (startsWith(0x89, 0x50, 0x4e, 0x47)) return "image/png";
  if (startsWith(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (startsWith(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (startsWith(0x52, 0x49, 0x46, 0x46) && data[8] === 0x57 && data[9] === 0x45)
    return "image/webp";
  if (startsWith(0x42, 0x4d)) return "image/bmp";
  return undefined;
}

/** Short human description of where an image comes from, for messages and reports. */
export function describeImage(part: ImagePart): string {
  switch (part.source.kind) {
    case "url":
      return part.source.url;
    case "file":
      return part.source.path;
    case "data-url":
      return `${part.source.url.slice(0, 40)}…`;
    case "bytes":
      return `${part.source.data.byteLength} bytes`;
  }
}

// Parts are immutable, so each is read once: the up-front check before any judge call and
// every request that sends the image share the same load.
const loadedImages = new WeakMap<ImagePart, Promise<LoadedImage>>();

/**
 * Reads an image part into something a judge can send (once per part). Fails with a clear
 * error for a missing file, an unreadable `data:` URL, or bytes of an unknown format.
 */
export function loadImage(part: ImagePart): Promise<LoadedImage> {
  let loading = loadedImages.get(part);
  if (loading === undefined) {
    loading = readImage(part);
    loadedImages.set(part, loading);
    // A failed read is not kept: fixing the file and trying again must work.
    loading.catch(() => loadedImages.delete(part));
  }
  return loading;
}

async function readImage(part: ImagePart): Promise<LoadedImage> {
  const source = part.source;
  switch (source.kind) {
    case "url":
      return { kind: "url", url: new URL(source.url), mediaType: part.mediaType };
    case "data-url": {
      const match = /^data:([^;,]+)?(;base64)?,(.*)$/is.exec(source.url);
      if (!match) {
        throw new EvalError(
          "INVALID_TEST_CASE",
          `Image "${describeImage(part)}" is not a valid data: URL (expected data:<type>;base64,<data>).`,
        );
      }
      const payload = match[3] ?? "";
      const data = match[2]
        ? new Uint8Array(Buffer.from(payload, "base64"))
        : new Uint8Array(Buffer.from(decodeURIComponent(payload)));
      const mediaType = part.mediaType ?? match[1] ?? sniffMediaType(data);
      if (!mediaType) {
        throw new EvalError(
          "INVALID_TEST_CASE",
          `Image "${describeImage(part)}" has no media type: write it in the data: URL or pass image(…, { mediaType }).`,
        );
      }
      return { kind: "bytes", data, mediaType };
    }
    case "file": {
      let data: Uint8Array;
      try {
        data = new Uint8Array(await readFile(source.path));
      } catch (error) {
        throw new EvalError(
          "INVALID_TEST_CASE",
          `Image file "${resolve(source.path)}" cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): check the path.`,
          { cause: error },
        );
      }
      const mediaType =
        part.mediaType ?? MEDIA_TYPES[extname(source.path).toLowerCase()] ?? sniffMediaType(data);
      if (!mediaType) {
        throw new EvalError(
          "INVALID_TEST_CASE",
          `Image file "${source.path}" is not a known image format: pass image(path, { mediaType }).`,
        );
      }
      return { kind: "bytes", data, mediaType };
    }
    case "bytes": {
      const mediaType = part.mediaType ?? sniffMediaType(source.data);
      if (!mediaType) {
        throw new EvalError(
          "INVALID_TEST_CASE",
          "Image bytes are not a known image format (PNG, JPEG, GIF, WebP, BMP): pass image(bytes, { mediaType }).",
        );
      }
      return { kind: "bytes", data: source.data, mediaType };
    }
  }
}
