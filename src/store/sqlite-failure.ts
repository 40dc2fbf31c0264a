import fs from "node:fs";
import path from "node:path";
import { StoreError } from "../errors/store-error.ts";
import { storeFailure } from "./store-failure.ts";

/** SQLite's primary result code of a refused constraint (unique key, foreign key). */
export const SQLITE_CONSTRAINT = 19;

/** The primary SQLite result code of an error thrown by node:sqlite; `undefined` for others. */
export function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  // Extended result codes carry the primary code in their low byte.
  return typeof code === "number" ? code & 0xff : undefined;
}

/** `Could not … in the verdict store <file>: reason.` */
export function sqliteStoreFailure(
  file: string,
  action: string,
  reason: string,
  cause?: unknown,
): StoreError {
  return storeFailure({ store: `the verdict store ${file}`, action, reason, cause });
}

function describeUnopenable(file: string): string {
  const folder = path.dirname(file);
  const folderStat = fs.statSync(folder, { throwIfNoEntry: false });
  if (folderStat === undefined) return `its folder ${folder} does not exist: create it`;
  if (!folderStat.isDirectory()) return `${folder} is a file, not a folder: choose another path`;
  try {
    fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return `its folder ${folder} is read-only: make it writable`;
  }
  return "the file is read-only or not accessible: make it readable and writable";
}

/** What went wrong and what to do, from an error thrown by node:sqlite or JSON. */
export function describeSqliteFailure(error: unknown, file: string): string {
  const detail = error instanceof Error ? error.message : String(error);
  const elsewhere = "or set VERDICT_HOME to another folder";
  switch (sqliteCode(error)) {
    case 5:
    case 6:
      return `it stayed locked by another process beyond the busy timeout (${detail}): retry, or raise busyTimeoutMs`;
    case 3:
    case 8:
      return `it is read-only (${detail}): make the file and its folder writable, ${elsewhere}`;
    case 11:
    case 26:
      return `it is not a verdict database or is corrupt (${detail}): move it away, ${elsewhere}`;
    case 10:
      return `a disk I/O error occurred (${detail}): check the disk and the file's permissions, ${elsewhere}`;
    case 13:
      return `the disk is full (${detail}): free some space, ${elsewhere}`;
    case 14:
      return `it cannot be opened (${detail}): ${describeUnopenable(file)}, ${elsewhere}`;
    default:
      return error instanceof SyntaxError
        ? `it holds malformed JSON (${detail}): the file is corrupt; move it away, ${elsewhere}`
        : detail;
  }
}

/** The `StoreError` for what `action` threw: a `StoreError` as it is, anything else worded. */
export function toSqliteStoreError(file: string, action: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  return sqliteStoreFailure(file, action, describeSqliteFailure(error, file), error);
}
