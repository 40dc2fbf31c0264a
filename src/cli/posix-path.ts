import path from "node:path";

/** `file` with `/` between its parts on every platform: how globs and reports spell paths. */
export function posixPath(file: string): string {
  return file.split(path.sep).join("/");
}
