import { open, readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EvalError } from "../errors/eval-error.ts";
import { decodeDataUrl } from "./data-url.ts";
import { httpUrlProblem, imagePartProblem } from "./image-part-problem.ts";
import { checkImageBytes, SNIFFED_FORMATS } from "./sniff-image.ts";

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

// Formats a name can tell but content cannot (they are sent with this type unchecked).
const MEDIA_TYPES: Record<string, string> = {
  ".avif": "image/avif",
  ".heic": "image/heic",
  ".heif": "image/heif",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
};

function invalid(message: string): EvalError {
  return new EvalError("INVALID_TEST_CASE", message);
}

/**
 * Makes an image part from a URL (`http(s)://`), a file path (or `file://` URL), a `data:`
 * URL, or bytes. What can be checked at once is: an unusable URL (no host, another scheme,
 * spaces), a malformed `data:` URL (media type, base64, % escapes), and bytes that are not
 * an image (content sniffed: PNG, JPEG, GIF, WebP, BMP, SVG) throw here; a file is read and
 * sniffed when a run checks its test case.
 * @throws EvalError (code `INVALID_TEST_CASE`) saying what is wrong and what to do.
 * @example
 * const testCase = new LLMTestCase({ input: mm`What is this? ${image("eiffel.jpg")}`, actualOutput: "…" });
 */
export function image(
  source: string | URL | Uint8Array | ArrayBuffer,
  options: ImageOptions = {},
): ImagePart {
  const mediaType = options.mediaType;
  if (
    mediaType !== undefined &&
    !(typeof mediaType === "string" && /^image\/[\w.+-]+$/i.test(mediaType))
  ) {
    throw invalid(
      `image() got mediaType ${JSON.stringify(mediaType)}: give an image type such as "image/png", or leave it out.`,
    );
  }
  const withType = (part: ImageSource): ImagePart =>
    mediaType === undefined
      ? { type: "image", source: part }
      : { type: "image", source: part, mediaType };
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    const data = source instanceof Uint8Array ? source : new Uint8Array(source);
    const checked = checkImageBytes(data, mediaType);
    if ("problem" in checked) {
      throw invalid(
        `image(bytes): the data ${checked.problem}. Pass the bytes of a ${SNIFFED_FORMATS} image (for another image format, add { mediaType }).`,
      );
    }
    return withType({ kind: "bytes", data });
  }
  const text = source instanceof URL ? source.href : source;
  if (typeof text !== "string" || text.trim() === "") {
    const got =
      typeof text === "string" ? "an empty string" : text === null ? "null" : `a ${typeof text}`;
    throw invalid(`image() needs a URL, a file path, a data: URL or bytes; it got ${got}.`);
  }
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
  if (/^data:/i.test(text)) {
    const decoded = decodeDataUrl(text, mediaType);
    if ("problem" in decoded) throw invalid(`image(): the data: URL ${shown} ${decoded.problem}.`);
    return withType({ kind: "data-url", url: text });
  }
  // A scheme of two letters or more (one letter is a Windows drive: C:\…).
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") {
    const problem = httpUrlProblem(text);
    if (problem) throw invalid(`image(): the URL ${shown} ${problem}.`);
    return withType({ kind: "url", url: text });
  }
  if (scheme === "file") {
    try {
      return withType({ kind: "file", path: fileURLToPath(text) });
    } catch (error) {
      throw invalid(
        `image(): ${shown} is not a usable file: URL (${(error as Error).message}): write file:///absolute/path.png, or pass the path itself.`,
      );
    }
  }
  if (scheme !== undefined) {
    throw invalid(
      `image(): ${shown} has the scheme "${scheme}:", which images cannot come from: use an http(s):// URL, a data: URL, a file path, or the image's bytes.`,
    );
  }
  if (text.includes("\0")) throw invalid(`image(): the path ${shown} contains a NUL character.`);
  return withType({ kind: "file", path: text });
}

/** True when `value` is an image part made by {@link image}. */
export function isImagePart(value: unknown): value is ImagePart {
  return imagePartProblem(value) === null;
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
  const problem = imagePartProblem(part);
  if (problem !== null) {
    return Promise.reject(invalid(`Image part ${problem}: make image parts with image().`));
  }
  let loading = loadedImages.get(part);
  if (loading === undefined) {
    loading = readImage(part);
    loadedImages.set(part, loading);
    // A failed read is not kept: fixing the file and trying again must work.
    loading.catch(() => loadedImages.delete(part));
  }
  return loading;
}

function unusable(part: ImagePart, problem: string): EvalError {
  const source = part.source;
  const where =
    source.kind === "file"
      ? `Image file "${resolve(source.path)}"`
      : source.kind === "bytes"
        ? `Image (${source.data.byteLength} bytes)`
        : `Image "${describeImage(part)}"`;
  return invalid(
    `${where} ${problem}: point image() at a ${SNIFFED_FORMATS} image (for another image format, add { mediaType }).`,
  );
}

async function readImageFile(path: string, headOnly: boolean): Promise<Uint8Array> {
  try {
    if (!headOnly) return new Uint8Array(await readFile(path));
    const file = await open(path, "r");
    try {
      const head = new Uint8Array(1024);
      const { bytesRead } = await file.read(head, 0, head.length, 0);
      return head.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "does not exist (ENOENT)"
        : code === "EISDIR"
          ? "is a folder (EISDIR)"
          : `cannot be read (${code ?? String(error)})`;
    throw invalid(`Image file "${resolve(path)}" ${why}: check the path.`);
  }
}

/**
 * Checks that an image part can be sent, without keeping its bytes: a file is opened and
 * its first bytes sniffed; other sources are checked in memory.
 * @throws EvalError (code `INVALID_TEST_CASE`) naming the image and what to do.
 */
export async function checkImage(part: ImagePart): Promise<void> {
  if (part.source.kind !== "file") {
    await loadImage(part);
    return;
  }
  const head = await readImageFile(part.source.path, true);
  const declared = part.mediaType ?? MEDIA_TYPES[extname(part.source.path).toLowerCase()];
  const checked = checkImageBytes(head, declared);
  if ("problem" in checked) throw unusable(part, checked.problem);
}

async function readImage(part: ImagePart): Promise<LoadedImage> {
  const source = part.source;
  switch (source.kind) {
    case "url":
      return { kind: "url", url: new URL(source.url), mediaType: part.mediaType };
    case "data-url": {
      const decoded = decodeDataUrl(source.url, part.mediaType);
      if ("problem" in decoded) throw unusable(part, decoded.problem);
      return { kind: "bytes", ...decoded };
    }
    case "file": {
      const data = await readImageFile(source.path, false);
      const declared = part.mediaType ?? MEDIA_TYPES[extname(source.path).toLowerCase()];
      const checked = checkImageBytes(data, declared);
      if ("problem" in checked) throw unusable(part, checked.problem);
      return { kind: "bytes", data, mediaType: checked.mediaType };
    }
    case "bytes": {
      const checked = checkImageBytes(source.data, part.mediaType);
      if ("problem" in checked) throw unusable(part, checked.problem);
      return { kind: "bytes", data: source.data, mediaType: checked.mediaType };
    }
  }
}
