import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The file name of the ignore file verdict writes in a verdict home folder it creates. */
export const VERDICT_GITIGNORE_FILE_NAME = ".gitignore";

/**
 * What `.verdict/.gitignore` holds: the run store and judge cache (the SQLite file and its
 * `-wal`/`-shm` companions) and temporary files stay out of git; `config.json`, the team's
 * default judge, is meant to be committed.
 */
export const VERDICT_GITIGNORE = [
  "# Written by verdict: the run store and judge cache stay local; config.json is shared.",
  "verdict.db",
  "verdict.db-*",
  "*.tmp",
  "",
].join("\n");

/**
 * Creates the verdict home folder (and its parents) if it is missing; when it creates it, it
 * also writes {@link VERDICT_GITIGNORE} into it, so that a new `.verdict/` never puts a
 * database into git. A folder that already exists is left as it is. Errors (an unwritable
 * parent) are thrown as they come, for the caller to describe.
 * @example
 * createVerdictHome({ home: path.resolve(".verdict") });
 */
export function createVerdictHome(options: { home: string }): void {
  const home = path.resolve(options.home);
  const created = mkdirSync(home, { recursive: true });
  if (created === undefined) return;
  // "wx": never replace an ignore file a person wrote in the meantime.
  try {
    writeFileSync(path.join(home, VERDICT_GITIGNORE_FILE_NAME), VERDICT_GITIGNORE, {
      flag: "wx",
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
  }
}
