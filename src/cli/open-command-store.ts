import { existsSync } from "node:fs";
import path from "node:path";
import { resolveVerdictHome } from "../config/project-config.ts";
import { type OpenedRunStore, openRunStore, storeUrlOf } from "../store/open-run-store.ts";
import { PostgresRunStore } from "../store/postgres-run-store.ts";
import { SqliteRunStore, STORE_FILE_NAME } from "../store/sqlite-run-store.ts";

/** The store a reading command opened, and how messages name it. */
export interface CommandStore {
  store: OpenedRunStore;
  /** The SQLite file, or the PostgreSQL target (never its password). */
  where: string;
}

/**
 * The store that `verdict view`, `compare` and `merge --run` read: the PostgreSQL store of
 * `VERDICT_STORE` when it is set, else the SQLite file of `VERDICT_HOME` (`.verdict/`), which a
 * reading command never creates: `{ missingFile }` when it does not exist yet. Throws a
 * `StoreError` (or a `ConfigError` for a malformed `VERDICT_STORE`) when the store cannot be
 * opened.
 */
export function openCommandStore(options: {
  env: NodeJS.ProcessEnv;
  cwd: string;
}): CommandStore | { missingFile: string } {
  if (storeUrlOf(undefined, options.env) !== null) {
    const store = openRunStore({ env: options.env, cwd: options.cwd });
    return { store, where: store instanceof PostgresRunStore ? store.target : "the store" };
  }
  const file = path.join(resolveVerdictHome(options), STORE_FILE_NAME);
  if (!existsSync(file)) return { missingFile: file };
  return { store: new SqliteRunStore({ path: file }), where: file };
}
