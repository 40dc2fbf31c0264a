import { existsSync } from "node:fs";
import path from "node:path";

/**
 * The project a working directory belongs to: the nearest folder, from `cwd` up, that holds a
 * `package.json`; `cwd` itself when none does. verdict keeps its `.verdict/` folder there and
 * reads `.env` from there, so that a command run from a subfolder (`cd evals && npx verdict
 * test run .`) finds the project's keys and store instead of making a second `.verdict/`.
 * @example
 * findProjectRoot("/work/shop/evals"); // "/work/shop" when /work/shop/package.json exists
 */
export function findProjectRoot(cwd: string): string {
  const start = path.resolve(cwd);
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, "package.json"))) return folder;
    if (path.dirname(folder) === folder) return start;
  }
}
