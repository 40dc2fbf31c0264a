import { existsSync, readFileSync } from "node:fs";
import { readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Where the app's built files are, below the package's root (`npm run build` writes them). */
export const APP_FOLDER = path.join("dist", "view-app");

/** Content types of the files a Vite build of the app holds. */
const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

/**
 * The app's folder: `<package root>/dist/view-app`, the package root being the nearest folder
 * above this module with verdict's package.json (the same from `src/` and from `dist/`).
 * `null` when the app is not built (a source checkout before `npm run build`).
 */
export function findAppFolder(start = path.dirname(fileURLToPath(import.meta.url))): string | null {
  let folder = start;
  for (;;) {
    const manifest = path.join(folder, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "verdict") {
          const app = path.join(folder, APP_FOLDER);
          return existsSync(path.join(app, "index.html")) ? app : null;
        }
      } catch {}
    }
    const parent = path.dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

/** A file of the app, ready to send. */
export interface AppFile {
  body: Buffer;
  contentType: string;
}

/**
 * Reads a file of the app by its path segments (already checked: no `..`, no separators),
 * refusing anything that resolves outside the app's folder; `null` when there is none.
 */
export async function readAppFile(
  folder: string,
  segments: readonly string[],
): Promise<AppFile | null> {
  const contentType = CONTENT_TYPES[path.extname(segments.at(-1) ?? "").toLowerCase()];
  if (contentType === undefined) return null;
  try {
    const root = await realpath(folder);
    const file = await realpath(path.join(root, ...segments));
    if (!file.startsWith(root + path.sep)) return null;
    return { body: await readFile(file), contentType };
  } catch {
    return null;
  }
}
