import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { ResultImage } from "../../results/evaluation-result.ts";
import { decodeDataUrl } from "../../test-case/data-url.ts";
import { checkImageBytes, SNIFFED_FORMATS } from "../../test-case/sniff-image.ts";
import { NotFoundError } from "./view-errors.ts";

/** The largest image file the dashboard reads. */
const MAX_IMAGE_FILE_BYTES = 20_000_000;

/** An image ready to send: its bytes and media type (checked by content). */
export interface ServedImage {
  data: Uint8Array;
  mediaType: string;
}

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

// `.env`, `.git/…`, `.verdict/…`, `.ssh/…`: where secrets live, and never where a test case's
// images do.
function isHidden(folder: string, file: string): boolean {
  return path
    .relative(folder, file)
    .split(path.sep)
    .some((part) => part.startsWith("."));
}

/**
 * The bytes of a case's image: from its stored `data:` URL, or from its file when the file is
 * inside the project (`projectRoot`, symbolic links resolved) and in no hidden file or folder
 * (`.env`, `.git/`). A remote URL is never fetched: the app shows it as a link the user may
 * follow. Whatever is sent is sniffed as an image first. A label comes from the store, which a
 * shared store or `verdict store import` may have filled: an answer never quotes the file.
 * @throws NotFoundError saying why the image cannot be shown (never what the file holds).
 */
export async function readCaseImage(options: {
  image: ResultImage;
  projectRoot: string;
}): Promise<ServedImage> {
  const { image } = options;
  if (image.data !== undefined) {
    const decoded = decodeDataUrl(image.data);
    if ("problem" in decoded) throw new NotFoundError(`The stored image ${decoded.problem}.`);
    return decoded;
  }
  if (image.kind === "url") {
    throw new NotFoundError(
      `Image ${image.number} is a remote URL, which the dashboard never fetches: open it yourself (${image.label.slice(0, 300)}).`,
    );
  }
  if (image.kind !== "file") {
    throw new NotFoundError(
      `Image ${image.number} was not stored with its result (stored by an older verdict, or larger than 2 MB).`,
    );
  }
  const root = await realpath(options.projectRoot);
  let file: string;
  try {
    file = await realpath(path.resolve(root, image.label));
  } catch {
    throw new NotFoundError(
      `The image file ${image.label.slice(0, 300)} does not exist (any more).`,
    );
  }
  if (!isInside(root, file)) {
    throw new NotFoundError(
      `The image file ${image.label.slice(0, 300)} is outside the project (${root}): the dashboard serves only files inside it.`,
    );
  }
  if (isHidden(root, file)) {
    throw new NotFoundError(
      `The image file ${image.label.slice(0, 300)} is in a hidden file or folder (a name starting with "."), which the dashboard never reads: keep test images elsewhere in the project.`,
    );
  }
  const info = await stat(file);
  if (!info.isFile() || info.size > MAX_IMAGE_FILE_BYTES) {
    throw new NotFoundError(
      `The image file ${image.label.slice(0, 300)} is not a file of at most 20 MB.`,
    );
  }
  const data = new Uint8Array(await readFile(file));
  const checked = checkImageBytes(data, undefined);
  if ("problem" in checked) {
    // Not the sniffer's own words, which quote the first bytes: the file may be anything.
    throw new NotFoundError(
      `The file ${image.label.slice(0, 300)} is not an image the dashboard can show (${SNIFFED_FORMATS}).`,
    );
  }
  return { data, mediaType: checked.mediaType };
}
